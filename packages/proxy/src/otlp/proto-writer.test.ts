// The protobuf writer's JS fast paths write what Buffer's own encoders write.
import { describe, expect, it } from 'vitest';
import { ProtoWriter } from './proto-writer.js';

const written = (write: (w: ProtoWriter) => void) => {
  const w = new ProtoWriter(4);
  write(w);
  return w.copy().toString('hex');
};

describe('ProtoWriter', () => {
  it('writes hex ids as the bytes Buffer decodes from them, stopping where Buffer stops', () => {
    for (const id of [
      '0af7651916cd43dd8448eb211c80319c',
      'B7AD6B7169203331',
      'abc',
      '0a1z34',
      'zz',
      '',
    ]) {
      const n = id.length >>> 1;
      const bytes = Buffer.alloc(n);
      const kept = bytes.write(id, 0, n, 'hex');
      expect(
        written((w) => w.hex(id)),
        id,
      ).toBe(Buffer.concat([Buffer.from([n]), bytes.subarray(0, kept)]).toString('hex'));
    }
  });
});
