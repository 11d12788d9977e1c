// A span's stored JSON (span-codec.ts encodeSpan: the text JSON.stringify makes of the stored object) written
// as UTF-8 straight into a block's bytes. The string encodeSpan made per span, its pieces and the attributes'
// JSON were the decoding thread's largest allocation per span (about 1.4 KB of 5.2), all of it scavenger work;
// here the common values (ASCII strings with nothing to escape, integers, booleans) are written byte by byte,
// and only the rest goes through JSON.stringify, so the bytes are the same.
import type { AttrMap, AttrValue, NormalizedSpan } from '../otlp/model.js';
import type { ByteSink } from './byte-sink.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
/** Up to this length a string is checked and written unit by unit; longer ones by the regex and one native write. */
const SHORT = 64;
/** Anything but printable ASCII other than `"` and `\`: what JSON.stringify escapes, or not one byte in UTF-8. */
const NOT_PLAIN = /[^ !#-[\]-~]/;
const MAX_SMALL = 2 ** 31;

/** A string as JSON.stringify writes it. */
export function writeJsonString(sink: ByteSink, s: string): void {
  const n = s.length;
  if (n <= SHORT) {
    sink.ensure(n + 2);
    const buf = sink.buf;
    let at = sink.at;
    buf[at++] = QUOTE;
    let plain = true;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) {
        plain = false;
        break;
      }
      buf[at++] = c;
    }
    if (plain) {
      buf[at++] = QUOTE;
      sink.at = at;
      return;
    }
  } else if (!NOT_PLAIN.test(s)) {
    sink.ensure(n + 2);
    sink.buf[sink.at++] = QUOTE;
    sink.at += sink.buf.write(s, sink.at, 'latin1');
    sink.buf[sink.at++] = QUOTE;
    return;
  }
  sink.utf8(JSON.stringify(s));
}

/** A number as JSON.stringify writes it: null when not finite, small integers without a string made for them. */
function writeNumber(sink: ByteSink, v: number): void {
  if (!Number.isFinite(v)) sink.ascii('null');
  // -0 passes too, and is "0" as JSON.stringify writes it.
  else if (Number.isInteger(v) && v >= 0 && v < MAX_SMALL) writeDigits(sink, v);
  else sink.ascii(String(v));
}

/** A whole number ≥ 0 below 2^53 in decimal; at least `width` digits, zeros in front. */
function writeDigits(sink: ByteSink, v: number, width = 1): void {
  let digits = 1;
  for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
  if (digits < width) digits = width;
  sink.ensure(digits);
  const buf = sink.buf;
  let x = v;
  for (let i = sink.at + digits - 1; i >= sink.at; i--) {
    buf[i] = 0x30 + (x % 10);
    x = Math.floor(x / 10);
  }
  sink.at += digits;
}

/** A 64-bit word's halves: a time read into them without a bigint made. */
const WORD = new BigUint64Array(1);
const HALVES = new Uint32Array(WORD.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const MAX_U64 = 2n ** 64n - 1n;
const BILLION = 1e9;

/** "00" to "99": two digits written per division by 100. */
const PAIRS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  PAIRS[2 * i] = 0x30 + Math.floor(i / 10);
  PAIRS[2 * i + 1] = 0x30 + (i % 10);
}

/** The nine digits of `v` (0 ≤ v < 10^9), zeros in front, at `at`. */
function writeNine(buf: Buffer, at: number, v: number): void {
  let x = v;
  for (let i = at + 7; i > at; i -= 2) {
    const q = Math.floor(x / 100);
    const r = 2 * (x - q * 100);
    buf[i] = PAIRS[r] as number;
    buf[i + 1] = PAIRS[r + 1] as number;
    x = q;
  }
  buf[at] = 0x30 + x;
}

/**
 * The seconds part of the last time written, and its digits: a span's start and end, and a batch's spans, mostly
 * fall in one second, whose ten or eleven digits are then copied instead of divided out again.
 */
let lastSeconds = -1;
const secondsDigits = new Uint8Array(24);
let secondsLength = 0;

/**
 * A time (nanoseconds, a bigint ≥ 0) in decimal, as its toString() reads, without that string made: two per
 * span. Divided by 10^9 in 16-bit steps, so every intermediate stays below 2^53 and exact as a double.
 */
function writeNanos(sink: ByteSink, v: bigint): void {
  if (!LITTLE_ENDIAN || v < 0n || v > MAX_U64) {
    sink.ascii(v.toString());
    return;
  }
  WORD[0] = v;
  const hi = HALVES[1] as number;
  const lo = HALVES[0] as number;
  const mid = (hi % BILLION) * 65536 + (lo >>> 16);
  const low = (mid % BILLION) * 65536 + (lo & 0xffff);
  // v = seconds * 10^9 + last; seconds < 2^64 / 10^9, below 2^35.
  const seconds =
    Math.floor(hi / BILLION) * 4294967296 +
    Math.floor(mid / BILLION) * 65536 +
    Math.floor(low / BILLION);
  const last = low % BILLION;
  if (seconds === 0) {
    writeDigits(sink, last);
    return;
  }
  if (seconds !== lastSeconds) {
    lastSeconds = seconds;
    const at = sink.at;
    if (seconds < BILLION) writeDigits(sink, seconds);
    else {
      writeDigits(sink, Math.floor(seconds / BILLION));
      writeDigits(sink, seconds % BILLION, 9);
    }
    secondsLength = sink.at - at;
    for (let i = 0; i < secondsLength; i++) secondsDigits[i] = sink.buf[at + i] as number;
  } else {
    // Byte by byte: ten or eleven bytes copy faster here than through Buffer.copy's native call.
    sink.ensure(secondsLength);
    const buf = sink.buf;
    const at = sink.at;
    for (let i = 0; i < secondsLength; i++) buf[at + i] = secondsDigits[i] as number;
    sink.at = at + secondsLength;
  }
  sink.ensure(9);
  writeNine(sink.buf, sink.at, last);
  sink.at += 9;
}

/** An attribute value; arrays and maps (rare) through JSON.stringify. */
function writeValue(sink: ByteSink, v: AttrValue): void {
  if (typeof v === 'string') writeJsonString(sink, v);
  else if (typeof v === 'number') writeNumber(sink, v);
  else if (v === true) sink.ascii('true');
  else if (v === false) sink.ascii('false');
  else if (v === null) sink.ascii('null');
  else sink.utf8(JSON.stringify(v));
}

/**
 * An attribute map as JSON.stringify writes it: its own enumerable keys in their order (for-in walks them in
 * that order, then inherited ones, which are skipped), a key whose value JSON has no text for left out.
 */
export function writeAttrMap(sink: ByteSink, map: AttrMap): void {
  sink.byte(0x7b); // {
  let first = true;
  for (const key in map) {
    if (!Object.hasOwn(map, key)) continue;
    const v = map[key] as unknown;
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    if (!first) sink.byte(COMMA);
    first = false;
    writeJsonString(sink, key);
    sink.byte(COLON);
    writeValue(sink, v as AttrValue);
  }
  sink.byte(0x7d); // }
}

/** encodeSpan(span) as UTF-8 into `sink`, byte for byte. */
export function writeSpan(sink: ByteSink, span: NormalizedSpan): void {
  // The ids are hex (normalize.ts checks them) and the times bigints: ASCII as they are.
  sink.ascii('{"s":"');
  sink.ascii(span.spanId);
  if (span.parentSpanId === null) sink.ascii('","p":null,"n":');
  else {
    sink.ascii('","p":"');
    sink.ascii(span.parentSpanId);
    sink.ascii('","n":');
  }
  writeJsonString(sink, span.name);
  sink.ascii(',"k":');
  writeNumber(sink, span.kind);
  sink.ascii(',"st":"');
  writeNanos(sink, span.startNs);
  sink.ascii('","en":"');
  writeNanos(sink, span.endNs);
  sink.ascii('","sc":');
  writeNumber(sink, span.statusCode);
  sink.ascii(',"sm":');
  writeJsonString(sink, span.statusMessage);
  sink.ascii(',"sn":');
  writeJsonString(sink, span.scopeName);
  sink.ascii(',"sv":');
  writeJsonString(sink, span.scopeVersion);
  sink.ascii(',"a":');
  writeAttrMap(sink, span.attributes);
  // Events, links and cut keys are rare: as encodeSpan writes them.
  if (span.events.length) {
    const events = span.events.map((e) => ({
      timeUnixNano: e.timeNs.toString(),
      name: e.name,
      attributes: e.attributes,
    }));
    sink.ascii(',"e":');
    sink.utf8(JSON.stringify(events));
  }
  if (span.links.length) {
    sink.ascii(',"l":');
    sink.utf8(JSON.stringify(span.links));
  }
  if (span.truncatedKeys.length) {
    sink.ascii(',"t":');
    sink.utf8(JSON.stringify(span.truncatedKeys));
  }
  if (span.droppedAttributes) {
    sink.ascii(',"d":');
    writeNumber(sink, span.droppedAttributes);
  }
  sink.byte(0x7d); // }
}
