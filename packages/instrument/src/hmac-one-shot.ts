// HMAC-SHA-256 from two one-shot native hashes (`crypto.hash`, Node 20.12+): the inner hash over the key's inner
// pad followed by the message, the outer over the outer pad followed by that digest. One-shot hashing crosses
// into C++ once per hash without making a Hash or Hmac object, so it costs about 0.3 µs whatever the size, where
// the JS rounds cost 0.4 µs per 64 bytes and node's createHmac about 1.8 µs. docs/decisions/0022.
import * as nodeCrypto from 'node:crypto';
import type { KeyedHash } from './hmac-sha256.js';

type OneShot = (algorithm: string, data: string | Uint8Array, encoding: 'binary') => string;

// Read once: `hash` is missing before Node 20.12, and then the JS rounds are used.
const oneShot: OneShot | undefined =
  typeof Reflect.get(nodeCrypto, 'hash') === 'function'
    ? (Reflect.get(nodeCrypto, 'hash') as OneShot)
    : undefined;

const BLOCK = 64;
const DIGEST = 32;
const KEPT = 64 * 1024;
// Char codes of '0'–'9', 'a'–'f'.
const HEX_CODES = new Uint8Array([
  48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102,
]);

/** Whether this Node has one-shot hashing. */
export const hasOneShotHash = (): boolean => oneShot !== undefined;

/**
 * The keyed hash of `block` (the key as HMAC pads it to 64 bytes) through one-shot native hashes, or undefined
 * on a Node without them.
 */
export function oneShotHmac(block: Uint8Array, hexChars: number): KeyedHash | undefined {
  const hash = oneShot;
  if (!hash) return undefined;
  let inner = new Uint8Array(BLOCK + 256);
  const outer = Buffer.alloc(BLOCK + DIGEST);
  let asciiPad = true;
  for (let i = 0; i < BLOCK; i++) {
    const b = block[i] as number;
    inner[i] = b ^ 0x36;
    outer[i] = b ^ 0x5c;
    if ((b ^ 0x36) > 0x7f) asciiPad = false;
  }
  // An ASCII inner pad (any ASCII key) is its own UTF-8: the message text is hashed after it as one string.
  const innerPad = asciiPad ? String.fromCharCode(...inner.subarray(0, BLOCK)) : undefined;
  const encoder = new TextEncoder();
  const hexCodes = new Array<number>(hexChars).fill(0);

  // Digests are read as 'binary' (latin1, one char per byte): the inner one is copied into the outer message by
  // char code, and only the first `hexChars` of the outer one are written as hex, one flat string, where a 64-char
  // hex digest and its slice (a sliced string keeping its parent alive on the span until export) were made per hash.
  const finish = (innerDigest: string): string => {
    for (let i = 0; i < DIGEST; i++) outer[BLOCK + i] = innerDigest.charCodeAt(i);
    const digest = hash('sha256', outer, 'binary');
    for (let i = 0; i < hexChars; i++) {
      const byte = digest.charCodeAt(i >> 1);
      hexCodes[i] = HEX_CODES[(i & 1) === 0 ? byte >> 4 : byte & 0xf] as number;
    }
    return String.fromCharCode.apply(null, hexCodes);
  };
  const room = (bytes: number): Uint8Array => {
    if (inner.length < BLOCK + bytes) {
      const grown = new Uint8Array(BLOCK + Math.max(bytes, inner.length * 2));
      grown.set(inner.subarray(0, BLOCK));
      // Kept for the next message up to KEPT bytes; a larger one's buffer is its own.
      if (grown.length > KEPT) return grown;
      inner = grown;
    }
    return inner;
  };

  const ofBytes = (data: Uint8Array, length: number): string => {
    const buf = room(length);
    // A loop for the short inputs this mostly sees; a copy in C++ past a few hundred bytes.
    if (length <= 256) for (let i = 0; i < length; i++) buf[BLOCK + i] = data[i] as number;
    else buf.set(data.subarray(0, length), BLOCK);
    return finish(hash('sha256', buf.subarray(0, BLOCK + length), 'binary'));
  };
  const ofText = (text: string): string => {
    if (innerPad !== undefined) return finish(hash('sha256', innerPad + text, 'binary'));
    const buf = room(text.length * 3);
    const { written } = encoder.encodeInto(text, buf.subarray(BLOCK));
    return finish(hash('sha256', buf.subarray(0, BLOCK + written), 'binary'));
  };
  return Object.assign(ofText, { bytes: ofBytes });
}
