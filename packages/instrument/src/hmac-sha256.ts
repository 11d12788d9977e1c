// HMAC-SHA-256 of short messages with the key's inner and outer pads prepared once: through one-shot native
// hashes where Node has them (hmac-one-shot.ts), else in plain JS, which costs ~1 µs for a tool input where
// node's createHmac costs ~3–6 µs, mostly crossing into C++. Checked against node:crypto on random keys and
// messages, both ways (hmac-sha256.test.ts). docs/decisions/0002, 0022.

import { createHmac } from 'node:crypto';
import { oneShotHmac } from './hmac-one-shot.js';

// Int32Array, not Uint32Array: values above 2^31 would leave V8's small-integer path for doubles.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const IV = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

const W = new Int32Array(64);
// Scratch for the padded last block(s); single-threaded, so one is enough.
const TAIL = new Uint8Array(128);

/** One SHA-256 compression of the 64-byte block at `offset` into `state`. */
function compress(state: Int32Array, block: Uint8Array, offset: number): void {
  for (let i = 0; i < 16; i++) {
    const j = offset + i * 4;
    W[i] =
      ((block[j] as number) << 24) |
      ((block[j + 1] as number) << 16) |
      ((block[j + 2] as number) << 8) |
      (block[j + 3] as number);
  }
  for (let i = 16; i < 64; i++) {
    const w15 = W[i - 15] as number;
    const w2 = W[i - 2] as number;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[i] = ((W[i - 16] as number) + s0 + (W[i - 7] as number) + s1) | 0;
  }
  let a = state[0] as number;
  let b = state[1] as number;
  let c = state[2] as number;
  let d = state[3] as number;
  let e = state[4] as number;
  let f = state[5] as number;
  let g = state[6] as number;
  let h = state[7] as number;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + (K[i] as number) + (W[i] as number)) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = ((state[0] as number) + a) | 0;
  state[1] = ((state[1] as number) + b) | 0;
  state[2] = ((state[2] as number) + c) | 0;
  state[3] = ((state[3] as number) + d) | 0;
  state[4] = ((state[4] as number) + e) | 0;
  state[5] = ((state[5] as number) + f) | 0;
  state[6] = ((state[6] as number) + g) | 0;
  state[7] = ((state[7] as number) + h) | 0;
}

/** Hashes `data` (length `length`) into `state`, which already absorbed `prefixBytes` bytes. */
function finish(state: Int32Array, data: Uint8Array, length: number, prefixBytes: number): void {
  let offset = 0;
  for (; offset + 64 <= length; offset += 64) compress(state, data, offset);
  const rest = length - offset;
  const end = rest < 56 ? 64 : 128;
  // Plain loops, not fill/set: this runs cold in a tool call, where each builtin entered costs more.
  const tail = TAIL;
  for (let i = 0; i < rest; i++) tail[i] = data[offset + i] as number;
  tail[rest] = 0x80;
  for (let i = rest + 1; i < end - 5; i++) tail[i] = 0;
  const bits = (prefixBytes + length) * 8;
  // Message length in bits, big-endian 64-bit; tool inputs stay far below 2^32 bytes.
  tail[end - 5] = Math.floor(bits / 2 ** 32) & 0xff;
  tail[end - 4] = (bits >>> 24) & 0xff;
  tail[end - 3] = (bits >>> 16) & 0xff;
  tail[end - 2] = (bits >>> 8) & 0xff;
  tail[end - 1] = bits & 0xff;
  compress(state, tail, 0);
  if (end === 128) compress(state, tail, 64);
}

// Char codes of '0'–'9', 'a'–'f'.
const HEX_CODES = new Uint8Array([
  48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102,
]);
const encoder = new TextEncoder();
const MAX_SCRATCH_CHARS = 4 * 1024;
// Bytes of a message that still leave room for the padding in its single last block.
const ONE_BLOCK = 56;

/** A keyed hash: of a string (UTF-8), or of the first `length` bytes of a buffer. */
export type KeyedHash = {
  (text: string): string;
  bytes: (data: Uint8Array, length: number) => string;
};

/**
 * A function computing the first `hexChars` hex characters of HMAC-SHA-256(key, message): through one-shot
 * native hashes where Node has them (hmac-one-shot.ts), else in JS; `'js'` forces the JS rounds (tests).
 */
export function createHmacSha256(
  key: Uint8Array,
  hexChars: number,
  implementation: 'auto' | 'js' = 'auto',
): KeyedHash {
  if (!Number.isInteger(hexChars) || hexChars < 2 || hexChars > 64 || hexChars % 2 !== 0)
    throw new RangeError(`hexChars must be an even number from 2 to 64, got ${hexChars}`);
  const block = new Uint8Array(64);
  if (key.length > 64) {
    const keyState = IV.slice();
    finish(keyState, key, key.length, 0);
    for (let i = 0; i < 8; i++) {
      const v = keyState[i] as number;
      block.set([v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff], i * 4);
    }
  } else {
    block.set(key);
  }
  const pad = new Uint8Array(64);
  const innerStart = IV.slice();
  for (let i = 0; i < 64; i++) pad[i] = (block[i] as number) ^ 0x36;
  compress(innerStart, pad, 0);
  const outerStart = IV.slice();
  for (let i = 0; i < 64; i++) pad[i] = (block[i] as number) ^ 0x5c;
  compress(outerStart, pad, 0);

  const inner = new Int32Array(8);
  const outer = new Int32Array(8);
  const innerDigest = new Uint8Array(32);
  const hexCodes = new Array<number>(hexChars).fill(0);
  let buffer = new Uint8Array(256);

  const ofBytes = (data: Uint8Array, length: number): string => {
    for (let i = 0; i < 8; i++) inner[i] = innerStart[i] as number;
    finish(inner, data, length, 64);
    for (let i = 0; i < 8; i++) {
      const v = inner[i] as number;
      innerDigest[i * 4] = v >>> 24;
      innerDigest[i * 4 + 1] = (v >>> 16) & 0xff;
      innerDigest[i * 4 + 2] = (v >>> 8) & 0xff;
      innerDigest[i * 4 + 3] = v & 0xff;
    }
    for (let i = 0; i < 8; i++) outer[i] = outerStart[i] as number;
    finish(outer, innerDigest, 32, 64);
    // One string made from char codes, not a chain of concatenations.
    for (let i = 0; i < hexChars; i++) {
      const v = outer[i >> 3] as number;
      hexCodes[i] = HEX_CODES[(v >>> (28 - (i & 7) * 4)) & 0xf] as number;
    }
    return String.fromCharCode.apply(null, hexCodes);
  };

  const ofText = (text: string): string => {
    // A long text (a large result): node's native HMAC, whose per-call cost is paid back past a few KB (the JS
    // rounds cost about 0.3 µs per 64 bytes), and no scratch buffer grown to the text's size.
    if (text.length > MAX_SCRATCH_CHARS)
      return createHmac('sha256', key).update(text, 'utf8').digest('hex').slice(0, hexChars);
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    if (buffer.length < text.length * 3) buffer = new Uint8Array(text.length * 3);
    // ASCII (most tool inputs) is copied in JS; anything else goes through TextEncoder (a C++ call).
    let written = text.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f) {
        written = encoder.encodeInto(text, buffer).written;
        break;
      }
      buffer[i] = c;
    }
    return ofBytes(buffer, written);
  };
  const native = implementation === 'auto' ? oneShotHmac(block, hexChars) : undefined;
  if (!native) return Object.assign(ofText, { bytes: ofBytes });
  // A message that fits the inner hash's last block costs two JS rounds, as cheap as two native calls; longer
  // ones cost a round per 64 bytes more in JS and nothing more natively.
  return Object.assign(
    (text: string): string => (text.length < ONE_BLOCK ? ofText(text) : native(text)),
    {
      bytes: (data: Uint8Array, length: number): string =>
        length < ONE_BLOCK ? ofBytes(data, length) : native.bytes(data, length),
    },
  );
}
