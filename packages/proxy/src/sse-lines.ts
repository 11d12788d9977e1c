// The JSON-RPC messages of a Server-Sent Events stream (Streamable HTTP answers a POST with one, and a GET
// opens one; the older HTTP+SSE transport sends everything on one): each event's `data:` lines joined, with
// the event's name, read from a copy of the bytes as they pass. What the reader keeps (the line being framed and
// the event's data so far) is held within a bound of its own and the process's budget: an event too large to
// hold, or one that never ends, is dropped as its bytes pass, and the stream is forwarded all the same.
import type { Holding, HoldRefusal } from './memory-budget.js';

const NEWLINE = 0x0a;
const CR = 0x0d;
const DATA = Buffer.from('data:');
const EVENT = Buffer.from('event:');
const JOIN = Buffer.from('\n');

/** What reads one stream: `push` takes its chunks, `end` its end, `close` gives back what it held if it broke. */
export type StreamReader = { push(chunk: Buffer): void; end(): void; close(): void };

const startsWith = (line: Buffer, prefix: Buffer) =>
  line.length >= prefix.length && line.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;

/**
 * Feeds each complete event's data and name (`message` when it has none) to `onData`; an event that could not be
 * held is never fed, and `onDropped` says why.
 */
export function sseReader(
  holding: Holding,
  onData: (data: Buffer, event: string) => void,
  onDropped: (why: HoldRefusal) => void,
): StreamReader {
  let partial: Buffer[] = [];
  let partialBytes = 0;
  // The rest of the current line is not kept: its event was dropped.
  let skipping = false;
  let data: Buffer[] = [];
  let dataBytes = 0;
  let cut = false;
  let event = 'message';

  const drop = (why: HoldRefusal) => {
    cut = true;
    data = [];
    dataBytes = 0;
    partial = [];
    partialBytes = 0;
    holding.release();
    onDropped(why);
  };
  const dispatch = () => {
    if (data.length > 0 && !cut)
      onData(data.length === 1 ? (data[0] as Buffer) : Buffer.concat(data), event);
    data = [];
    dataBytes = 0;
    cut = false;
    event = 'message';
    holding.resize(partialBytes);
  };
  const onLine = (raw: Buffer) => {
    const line = raw[raw.length - 1] === CR ? raw.subarray(0, raw.length - 1) : raw;
    if (line.length === 0) return dispatch();
    if (cut) return;
    if (startsWith(line, EVENT)) {
      event = line.subarray(line[6] === 0x20 ? 7 : 6, 262).toString();
      return;
    }
    if (!startsWith(line, DATA)) return;
    const value = line.subarray(line[5] === 0x20 ? 6 : 5);
    const joined = data.length > 0 ? 1 : 0;
    const refused = holding.resize(partialBytes + dataBytes + joined + value.length);
    if (refused) return drop(refused);
    if (joined) data.push(JOIN);
    data.push(Buffer.from(value));
    dataBytes += joined + value.length;
  };

  return {
    push: (chunk) => {
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? chunk.length : newline;
        if (!skipping) {
          const piece = chunk.subarray(start, end);
          if (newline !== -1) {
            const line = partialBytes === 0 ? piece : Buffer.concat([...partial, piece]);
            partial = [];
            partialBytes = 0;
            onLine(line);
            // The line's own bytes are no longer kept; the event's data is.
            holding.resize(dataBytes);
          } else if (piece.length > 0) {
            const refused = holding.resize(partialBytes + dataBytes + piece.length);
            if (refused) {
              drop(refused);
              skipping = true;
            } else {
              partial.push(Buffer.from(piece));
              partialBytes += piece.length;
            }
          }
        }
        if (newline === -1) return;
        skipping = false;
        start = newline + 1;
      }
    },
    end: () => {
      if (partialBytes > 0) {
        const line = Buffer.concat(partial);
        partial = [];
        partialBytes = 0;
        onLine(line);
      }
      dispatch();
      holding.release();
    },
    close: () => {
      data = [];
      partial = [];
      holding.release();
    },
  };
}

/** A JSON answer's body, observed once whole; one too large to hold is forwarded unread. */
export function jsonReader(
  type: string,
  holding: Holding,
  onBody: (body: Buffer) => void,
  onDropped: (why: HoldRefusal) => void,
): StreamReader {
  let parts: Buffer[] = [];
  let dropped = !type.includes('json');
  return {
    push: (chunk) => {
      if (dropped) return;
      const refused = holding.add(chunk.length);
      if (!refused) {
        parts.push(chunk);
        return;
      }
      dropped = true;
      parts = [];
      holding.release();
      onDropped(refused);
    },
    end: () => {
      if (!dropped && holding.bytes > 0)
        onBody(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
      parts = [];
      holding.release();
    },
    close: () => {
      parts = [];
      holding.release();
    },
  };
}
