// Strings and ids kept from one read to the next (proto-strings.ts, proto-values.ts RepeatedHex) and fixed64s read
// as one word must read exactly what protobufjs reads, repeats, collisions in the table, non-ASCII text, long
// strings and fields running past the buffer included.
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { ProtoReader } from './proto.js';
import { stringOf } from './proto-strings.js';
import { fixed64, RepeatedHex, type Wire } from './proto-values.js';

const reader = (bytes: Uint8Array) => ProtoReader.create(Buffer.from(bytes)) as Wire;

// Few distinct strings, so that most are repeats, beside any string at all; some alike in the bytes their slot
// is hashed from (the length, the first four and last four), ASCII or not, so they share a slot.
const pool = fc.constantFrom(
  '',
  'a',
  'gen_ai.tool.name',
  'execute_tool',
  'é',
  'x'.repeat(48),
  'y'.repeat(49),
  'abcd-middle-1-wxyz',
  'abcd-middle-2-wxyz',
  'abcdXYZwxyz',
  'abcdé_wxyz',
);
const strings = fc.array(
  fc.oneof(pool, fc.string(), fc.string({ unit: 'binary', maxLength: 80 })),
  {
    maxLength: 40,
  },
);

describe('stringOf', () => {
  it('reads what protobufjs reads, repeat after repeat', () => {
    fc.assert(
      fc.property(strings, fc.nat(), (list, cut) => {
        const w = protobuf.Writer.create();
        for (const s of list) w.string(s);
        const whole = w.finish();
        // And the same fields cut short: the last one runs past the buffer.
        for (const bytes of [
          whole,
          whole.subarray(0, whole.length === 0 ? 0 : cut % whole.length),
        ]) {
          const ours = reader(bytes);
          const theirs = reader(bytes);
          while (theirs.pos < theirs.len) {
            expect(stringOf(ours)).toBe(theirs.string());
            expect(ours.pos).toBe(theirs.pos);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('RepeatedHex and fixed64', () => {
  it('read ids and 64-bit times as protobufjs reads them', () => {
    const id = fc.oneof(
      fc.constantFrom(new Uint8Array(16).fill(1), new Uint8Array(8).fill(2)),
      fc.uint8Array({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(id, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })), { maxLength: 20 }),
        (fields) => {
          const w = protobuf.Writer.create();
          for (const [bytes, n] of fields) {
            w.bytes(bytes);
            w.fixed32(Number(n & 0xffffffffn)).fixed32(Number(n >> 32n));
          }
          const r = reader(w.finish());
          const ids = new RepeatedHex();
          for (const [bytes, n] of fields) {
            expect(ids.read(r)).toBe(Buffer.from(bytes).toString('hex'));
            expect(fixed64(r)).toBe(n);
          }
          expect(r.pos).toBe(r.len);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a fixed64 running past the buffer as protobufjs does', () => {
    expect(() => fixed64(reader(new Uint8Array(7)))).toThrow(RangeError);
  });
});
