// What the event-stream and JSON readers keep: whole events as before, and never more than their bound: an event
// that never ends, or one larger than a message may be, is dropped as it passes and its bytes given back.
import { describe, expect, it } from 'vitest';
import { holdings } from './memory-budget.js';
import { jsonReader, sseReader } from './sse-lines.js';

function collect(limit = 1 << 20, max = 1 << 16) {
  const memory = holdings(limit, max);
  const events: [string, string][] = [];
  const dropped: string[] = [];
  const reader = sseReader(
    memory.hold(),
    (data, event) => events.push([event, data.toString()]),
    (why) => dropped.push(why),
  );
  return { memory, events, dropped, reader };
}

describe('sseReader', () => {
  it('joins an event’s data lines, with its name, across chunk boundaries and CRLF', () => {
    const { events, reader, memory } = collect();
    const stream =
      'event: endpoint\r\ndata: /messages?x=1\r\n\r\ndata: {"a":\ndata: 1}\n\n: ping\n\n';
    for (let i = 0; i < stream.length; i += 3) reader.push(Buffer.from(stream.slice(i, i + 3)));
    reader.end();
    expect(events).toEqual([
      ['endpoint', '/messages?x=1'],
      ['message', '{"a":\n1}'],
    ]);
    expect(memory.budget.used).toBe(0);
  });

  it('drops an event that never ends, holding no more than one message meanwhile', () => {
    const { events, dropped, reader, memory } = collect(1 << 20, 1 << 16);
    const line = Buffer.from(`data: ${'x'.repeat(1000)}\n`);
    let peak = 0;
    for (let i = 0; i < 5000; i++) {
      reader.push(line);
      peak = Math.max(peak, memory.budget.used);
    }
    expect(peak).toBeLessThanOrEqual(1 << 16);
    expect(dropped).toEqual(['too_large']);
    // The stream goes on: the next event is read.
    reader.push(Buffer.from('\ndata: {"after":1}\n\n'));
    expect(events).toEqual([['message', '{"after":1}']]);
    expect(memory.budget.used).toBe(0);
  });

  it('drops a line that never ends without holding it', () => {
    const { dropped, reader, memory } = collect(1 << 20, 1 << 16);
    const piece = Buffer.alloc(4096, 0x78);
    reader.push(Buffer.from('data: '));
    for (let i = 0; i < 1000; i++) reader.push(piece);
    expect(memory.budget.used).toBe(0);
    expect(dropped).toEqual(['too_large']);
    reader.close();
  });

  it('drops what the process budget cannot hold, and says so', () => {
    const memory = holdings(100, 1000);
    const dropped: string[] = [];
    const other = memory.hold();
    expect(other.add(90)).toBeUndefined();
    const reader = sseReader(
      memory.hold(),
      () => {},
      (why) => dropped.push(why),
    );
    reader.push(Buffer.from(`data: ${'y'.repeat(50)}\n\n`));
    expect(dropped).toEqual(['over_budget']);
    other.release();
    expect(memory.budget.used).toBe(0);
  });
});

describe('jsonReader', () => {
  it('hands on a whole JSON body, and gives its bytes back', () => {
    const memory = holdings(1000, 100);
    const bodies: string[] = [];
    const reader = jsonReader(
      'application/json',
      memory.hold(),
      (b) => bodies.push(b.toString()),
      () => {},
    );
    reader.push(Buffer.from('{"id":'));
    reader.push(Buffer.from('1}'));
    expect(memory.budget.used).toBe(8);
    reader.end();
    expect(bodies).toEqual(['{"id":1}']);
    expect(memory.budget.used).toBe(0);
  });

  it('forwards a body over the message bound unread', () => {
    const memory = holdings(1000, 100);
    const dropped: string[] = [];
    const bodies: string[] = [];
    const reader = jsonReader(
      'application/json',
      memory.hold(),
      (b) => bodies.push(b.toString()),
      (why) => dropped.push(why),
    );
    for (let i = 0; i < 20; i++) reader.push(Buffer.alloc(10, 0x20));
    reader.end();
    expect(bodies).toEqual([]);
    expect(dropped).toEqual(['too_large']);
    expect(memory.budget.used).toBe(0);
  });
});
