import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasOneShotHash } from './hmac-one-shot.js';
import { createHmacSha256 as createHmacOf } from './hmac-sha256.js';

const native = (key: Uint8Array, text: string, hex: number) =>
  createHmac('sha256', key).update(text, 'utf8').digest('hex').slice(0, hex);

describe.each(['auto', 'js'] as const)('createHmacSha256 (%s)', (implementation) => {
  const createHmacSha256 = (key: Uint8Array, hex: number) => createHmacOf(key, hex, implementation);

  it('equals node:crypto HMAC-SHA-256 for any key and text, across block boundaries', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.string({ unit: 'binary', maxLength: 300 }),
        (key, text) => {
          expect(createHmacSha256(key, 64)(text)).toBe(native(key, text, 64));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('handles every padding edge (message lengths 0 to 200 bytes) and reuse of its buffers', () => {
    const key = new TextEncoder().encode('k');
    const hmac = createHmacSha256(key, 16);
    for (let n = 0; n <= 200; n++) expect(hmac('a'.repeat(n))).toBe(native(key, 'a'.repeat(n), 16));
    expect(hmac('é漢字🙂'.repeat(500))).toBe(native(key, 'é漢字🙂'.repeat(500), 16));
    // Past 4 KB the text goes through node's HMAC: the same hash as the JS rounds give its bytes.
    const long = 'résultat '.repeat(2000);
    const bytes = Buffer.from(long);
    expect(hmac(long)).toBe(hmac.bytes(bytes, bytes.length));
    expect(hmac(long)).toBe(native(key, long, 16));
    expect(hmac('x')).toBe(native(key, 'x', 16));
  });

  it('hashes bytes like the same text, for any even number of hex characters', () => {
    const key = new TextEncoder().encode('bytes-key');
    const text = '{"customerId":"cus_1"}';
    const bytes = new TextEncoder().encode(`${text}trailing bytes not hashed`);
    for (const hex of [2, 16, 40, 64]) {
      const hmac = createHmacSha256(key, hex);
      expect(hmac.bytes(bytes, text.length)).toBe(native(key, text, hex));
      expect(hmac(text)).toBe(native(key, text, hex));
    }
    expect(() => createHmacSha256(key, 15)).toThrow(RangeError);
    expect(() => createHmacSha256(key, 66)).toThrow(RangeError);
  });

  it('keys whose pads are not ASCII, and keys longer than a block, hash as node:crypto does', () => {
    const keys = [
      new Uint8Array([0xff, 0x80, 0x00]),
      new TextEncoder().encode('ключ'),
      new Uint8Array(100).fill(7),
    ];
    for (const key of keys) {
      const hmac = createHmacSha256(key, 16);
      for (const text of ['', 'x', 'é漢字🙂', 'a'.repeat(1000), '\ud800 lone']) {
        expect(hmac(text)).toBe(native(key, text, 16));
        const bytes = new TextEncoder().encode(text);
        expect(hmac.bytes(bytes, bytes.length)).toBe(native(key, text, 16));
      }
    }
  });
});

it('uses one-shot native hashing on this Node', () => {
  expect(hasOneShotHash()).toBe(true);
});
