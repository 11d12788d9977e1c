// Line framing: lines split across chunks, several per chunk, a last line without a newline, an oversized line.
import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line-splitter.js';

function split(chunks: string[], max = 1024): [string, boolean, boolean][] {
  const seen: [string, boolean, boolean][] = [];
  const s = new LineSplitter(
    (bytes, whole, newline) => seen.push([bytes.toString(), whole, newline]),
    max,
  );
  for (const c of chunks) s.push(Buffer.from(c));
  s.flush();
  return seen;
}

describe('LineSplitter', () => {
  it('hands on whole lines however the chunks fall', () => {
    expect(split(['{"a":1}\n{"b"', ':2}\n\n{"c":3}'])).toEqual([
      ['{"a":1}\n', true, true],
      ['{"b":2}\n', true, true],
      ['\n', true, true],
      ['{"c":3}', true, false],
    ]);
  });

  it('passes a line over the cap on in pieces that are not whole, with the newline at its end', () => {
    const pieces = split(['0123456789', 'abcdef', 'gh\nok\n'], 8);
    expect(pieces).toEqual([
      ['0123456789', false, false],
      ['abcdefgh\n', false, true],
      ['ok\n', true, true],
    ]);
  });
});
