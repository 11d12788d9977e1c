// The observer's prefilter: every spelling of a watched method a JSON parser accepts is parsed, and ordinary
// lines (plain text escapes, non-ASCII escapes) stay on the fast path.
import { describe, expect, it } from 'vitest';
import { parseLine } from './jsonrpc.js';
import { hasAsciiEscape, mayBeWatched } from './method-filter.js';

const line = (text: string) => Buffer.from(text);

describe('mayBeWatched', () => {
  it('passes every escaped spelling of tools/call that JSON.parse reads as tools/call', () => {
    for (const method of [
      'tools\\/call',
      '\\u0074ools/call',
      'tools\\u002fcall',
      'tools\\u002Fcall',
      '\\u0074\\u006f\\u006f\\u006c\\u0073\\u002f\\u0063\\u0061\\u006c\\u006c',
    ]) {
      const text = `{"jsonrpc":"2.0","id":1,"method":"${method}","params":{"name":"t"}}`;
      expect(parseLine(text)?.[0]).toMatchObject({ method: 'tools/call' });
      expect(mayBeWatched(line(text)), method).toBe(true);
    }
    expect(mayBeWatched(line('{"id":1,"method":"\\u0069nitialize"}'))).toBe(true);
    expect(mayBeWatched(line('{"id":1,"method":"server\\/discover"}'))).toBe(true);
  });

  it('passes the plain spellings, and leaves lines without a watched method or an ASCII escape alone', () => {
    expect(mayBeWatched(line('{"id":1,"method":"tools/call","params":{}}'))).toBe(true);
    expect(mayBeWatched(line('{"id":1,"method":"tools/list"}'))).toBe(true);
    expect(mayBeWatched(line('{"method":"notifications/initialized"}'))).toBe(false);
    expect(mayBeWatched(line('{"id":2,"result":{"text":"a\\nb \\"q\\" c:\\\\d"}}'))).toBe(false);
    // Non-ASCII escapes (Python's json.dumps writes them for every such character) spell no method name.
    expect(mayBeWatched(line('{"id":3,"result":{"text":"caf\\u00e9 \\u4e2d"}}'))).toBe(false);
  });

  it('reads an escaped backslash as a backslash, not as the start of an escape', () => {
    expect(hasAsciiEscape(line('"a\\\\u0074"'))).toBe(false);
    expect(hasAsciiEscape(line('"a\\\\/"'))).toBe(false);
    expect(hasAsciiEscape(line('"a\\\\\\u0074"'))).toBe(true);
    expect(hasAsciiEscape(line('"a\\'))).toBe(false);
  });
});
