// The JSON-RPC messages of a Server-Sent Events stream (Streamable HTTP answers a POST with one, and a GET
// opens one; the older HTTP+SSE transport sends everything on one): each event's `data:` lines joined, with
// the event's name, read from a copy of the bytes as they pass.
import { LineSplitter } from './line-splitter.js';

const MAX_EVENT_BYTES = 64 * 1024 * 1024;

/**
 * Feeds each complete event's data and name (`message` when it has none) to `onData`; `push` takes the stream's
 * chunks, `end` the end.
 */
export function sseReader(onData: (data: Buffer, event: string) => void): {
  push(chunk: Buffer): void;
  end(): void;
} {
  let data: Buffer[] = [];
  let size = 0;
  let cut = false;
  let event = 'message';
  const dispatch = () => {
    if (data.length > 0 && !cut)
      onData(data.length === 1 ? (data[0] as Buffer) : Buffer.concat(data), event);
    data = [];
    size = 0;
    cut = false;
    event = 'message';
  };
  const lines = new LineSplitter((bytes, whole, newline) => {
    // A line too long to hold makes its event unreadable; it was forwarded all the same.
    if (!whole) {
      cut = true;
      return;
    }
    let line = newline ? bytes.subarray(0, bytes.length - 1) : bytes;
    if (line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    if (line.length === 0) return dispatch();
    if (line.subarray(0, 6).toString() === 'event:') {
      event = line.subarray(line[6] === 0x20 ? 7 : 6).toString();
      return;
    }
    if (line.subarray(0, 5).toString() !== 'data:') return;
    const value = line[5] === 0x20 ? line.subarray(6) : line.subarray(5);
    if (data.length > 0) data.push(Buffer.from('\n'));
    data.push(Buffer.from(value));
    size += value.length;
    if (size > MAX_EVENT_BYTES) cut = true;
  }, MAX_EVENT_BYTES);
  return {
    push: (chunk) => lines.push(chunk),
    end: () => {
      lines.flush();
      dispatch();
    },
  };
}
