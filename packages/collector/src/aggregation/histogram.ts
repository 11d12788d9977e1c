// Log-bucketed latency histograms (5 % wide buckets from 1 µs): per-minute rollups merge them, and
// percentiles come from them with at most ~2.5 % relative error, without keeping every duration.

import { logBucketMiddle, logBucketOf } from './log-buckets.js';

export type Histogram = Map<number, number>;

/** Bucket of a duration in milliseconds. */
export function bucketOf(ms: number): number {
  return logBucketOf(ms * 1000);
}

/** Geometric middle of a bucket, in milliseconds. */
export function bucketValue(bucket: number): number {
  return logBucketMiddle(bucket) / 1000;
}

export function addTo(h: Histogram, ms: number, count = 1): void {
  const b = bucketOf(ms);
  h.set(b, (h.get(b) ?? 0) + count);
}

export function mergeInto(into: Histogram, from: Histogram): void {
  for (const [b, n] of from) into.set(b, (into.get(b) ?? 0) + n);
}

/** Removes `from`'s counts (a subset of `into`'s calls); buckets that reach zero go. */
export function subtractFrom(into: Histogram, from: Histogram): void {
  for (const [bucket, n] of from) {
    const left = (into.get(bucket) ?? 0) - n;
    if (left > 0) into.set(bucket, left);
    else into.delete(bucket);
  }
}

/** Scratch space of `serialize`, kept from call to call: the writer serializes every rollup row a batch adds to. */
let sortedBuckets = new Int32Array(512);
let text = Buffer.allocUnsafe(16 * 1024);
/** The most bytes one bucket's entry takes: `"` 10 digits `":` 16 digits `,`. */
const ENTRY_BYTES = 32;
const INT32_MAX = 2 ** 31 - 1;

/**
 * The stored text of a histogram: a JSON object of its buckets in ascending order, as JSON.stringify writes an
 * object's integer keys (histogram.test.ts holds the two to the same text). Written as bytes into scratch space
 * and read out as one string: the writer serializes each rollup row a batch adds to, three histograms a row,
 * and the bucket array, its sort and the strings of each number and piece were a fifth of all it allocated
 * (docs/decisions/0063-less-garbage-per-span.md). A histogram read from a damaged row can hold a bucket or a
 * count this does not write (a fraction, a bucket past 2^31): it is written the plain way.
 */
export function serialize(h: Histogram): string {
  const n = h.size;
  if (n === 0) return '{}';
  if (sortedBuckets.length < n) sortedBuckets = new Int32Array(2 ** Math.ceil(Math.log2(n)));
  let i = 0;
  for (const b of h.keys()) {
    if (!(Number.isInteger(b) && b >= 0 && b <= INT32_MAX)) return serializePlainly(h);
    sortedBuckets[i++] = b;
  }
  const buckets = sortedBuckets.subarray(0, n).sort();
  if (text.length < n * ENTRY_BYTES + 2) text = Buffer.allocUnsafe(n * ENTRY_BYTES + 2);
  let at = 0;
  text[at++] = 0x7b; // {
  for (let j = 0; j < n; j++) {
    const b = buckets[j] as number;
    const count = h.get(b) as number;
    if (!(Number.isSafeInteger(count) && count >= 0)) return serializePlainly(h);
    if (j > 0) text[at++] = 0x2c; // ,
    text[at++] = 0x22; // "
    at = writeDigits(text, at, b);
    text[at++] = 0x22;
    text[at++] = 0x3a; // :
    at = writeDigits(text, at, count);
  }
  text[at++] = 0x7d; // }
  return text.toString('latin1', 0, at);
}

/** Writes a non-negative safe integer's decimal digits at `at`; returns where they end. */
function writeDigits(into: Buffer, at: number, n: number): number {
  let length = 1;
  for (let p = 10; p <= n; p *= 10) length++;
  const end = at + length;
  for (let k = end - 1; k >= at; k--) {
    const q = Math.floor(n / 10);
    into[k] = 0x30 + (n - q * 10);
    n = q;
  }
  return end;
}

/** What `serialize` writes, by way of strings: for the buckets and counts it does not write itself. */
function serializePlainly(h: Histogram): string {
  const buckets = [...h.keys()].sort((a, b) => a - b);
  let out = '{';
  for (let i = 0; i < buckets.length; i++) {
    const b = buckets[i] as number;
    out += `${i === 0 ? '' : ','}"${b}":${h.get(b)}`;
  }
  return `${out}}`;
}

/**
 * Reads a stored histogram; anything malformed counts as empty (or the bad buckets as absent) rather than
 * failing the query, and `onDamage` hears of it.
 */
export function deserialize(text: string, onDamage?: (what: string) => void): Histogram {
  return addSerialized(new Map(), text, onDamage);
}

/**
 * Adds a stored histogram's counts to `into` (no Map per stored row: a range reads thousands of them). Text as
 * `serialize` writes it is read by hand; anything else (other spacing, damage) by JSON.parse, as before.
 */
export function addSerialized(
  into: Histogram,
  text: string,
  onDamage?: (what: string) => void,
): Histogram {
  if (text === '{}') return into;
  const n = readWritten(text);
  if (n >= 0) {
    for (let i = 0; i < n; i++) {
      const b = readBuckets[i] as number;
      into.set(b, (into.get(b) ?? 0) + (readCounts[i] as number));
    }
    return into;
  }
  return addParsed(into, text, onDamage);
}

/** Scratch of `readWritten`: a histogram's buckets and counts, kept from call to call. */
let readBuckets = new Int32Array(256);
let readCounts = new Float64Array(256);
/** The most digits read by hand: up to 15 a decimal is the double JSON.parse would make of it. */
const MAX_DIGITS = 15;

/**
 * Reads text exactly as `serialize` writes it (`{"b":c,…}`, buckets ascending, counts positive) into the
 * scratch arrays and returns how many buckets it holds; -1 for any other text, which is then read by JSON.parse
 * and its damage reported. Nothing is added before the whole text is read, so a text that turns out not to be
 * in that form is not counted twice. A histogram read for each stored rollup row was parsed into an object of
 * string keys first: on PostgreSQL, whose writer reads each row it adds to, that was 1.8 % of the collector's
 * CPU (docs/decisions/0063-less-garbage-per-span.md).
 */
function readWritten(text: string): number {
  const end = text.length;
  if (text.charCodeAt(0) !== 0x7b || text.charCodeAt(end - 1) !== 0x7d) return -1;
  let at = 1;
  let n = 0;
  let last = -1;
  while (at < end - 1) {
    if (n > 0 && text.charCodeAt(at++) !== 0x2c) return -1; // ,
    if (text.charCodeAt(at++) !== 0x22) return -1; // "
    let b = 0;
    const bucketStart = at;
    for (let c = text.charCodeAt(at); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++at))
      b = b * 10 + (c - 0x30);
    const bucketDigits = at - bucketStart;
    // Buckets as serialize writes them: no leading zero, ascending (so no bucket twice), within an Int32Array.
    if (bucketDigits === 0 || bucketDigits > 10 || b > 2 ** 31 - 1 || b <= last) return -1;
    if (bucketDigits > 1 && text.charCodeAt(bucketStart) === 0x30) return -1;
    if (text.charCodeAt(at++) !== 0x22 || text.charCodeAt(at++) !== 0x3a) return -1; // ":
    let count = 0;
    const countStart = at;
    for (let c = text.charCodeAt(at); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++at))
      count = count * 10 + (c - 0x30);
    const countDigits = at - countStart;
    if (countDigits === 0 || countDigits > MAX_DIGITS || count === 0) return -1;
    if (countDigits > 1 && text.charCodeAt(countStart) === 0x30) return -1; // JSON has no leading zero
    if (n === readBuckets.length) {
      readBuckets = grown(readBuckets, new Int32Array(n * 2));
      readCounts = grown(readCounts, new Float64Array(n * 2));
    }
    readBuckets[n] = b;
    readCounts[n] = count;
    n++;
    last = b;
  }
  return at === end - 1 ? n : -1;
}

function grown<T extends Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/**
 * addSerialized by JSON.parse: any JSON, its damage reported bucket by bucket. The reading there was before the
 * hand reader, which histogram.test.ts holds to it.
 */
export function addParsed(
  into: Histogram,
  text: string,
  onDamage?: (what: string) => void,
): Histogram {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    onDamage?.('a histogram is not valid JSON');
    return into;
  }
  if (typeof parsed !== 'object' || parsed === null) {
    onDamage?.('a histogram is not an object');
    return into;
  }
  const counts = parsed as Record<string, unknown>;
  for (const k in counts) {
    const v = counts[k];
    const b = Number(k);
    if (Number.isInteger(b) && b >= 0 && typeof v === 'number' && v > 0)
      into.set(b, (into.get(b) ?? 0) + v);
    else onDamage?.(`a histogram has a malformed bucket (${k.slice(0, 20)})`);
  }
  return into;
}

/** How many values a histogram holds. */
export function countOf(h: Histogram): number {
  let total = 0;
  for (const n of h.values()) total += n;
  return total;
}

/** The bucket holding the q-quantile (0..1) of a histogram, or null when it is empty. */
export function quantileBucket(h: Histogram, q: number): number | null {
  const total = countOf(h);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const b of [...h.keys()].sort((a, c) => a - c)) {
    seen += h.get(b) ?? 0;
    if (seen >= rank) return b;
  }
  return null;
}

/** The q-quantile (0..1) of a latency histogram in milliseconds, or null when it is empty. */
export function quantile(h: Histogram, q: number): number | null {
  const b = quantileBucket(h, q);
  return b === null ? null : Math.round(bucketValue(b) * 1000) / 1000;
}
