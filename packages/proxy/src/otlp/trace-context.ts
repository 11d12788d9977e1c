// W3C trace context as the proxy reads and writes it (the rules of OTel's W3CTraceContextPropagator and
// TraceState), and the random trace and span ids of its spans.
import { randomFillSync } from 'node:crypto';

/** A span's identity as it travels: ids in lowercase hex, the W3C flags, the vendor state. */
export type SpanRef = {
  traceId: string;
  spanId: string;
  /** W3C trace flags; bit 0 is "sampled". */
  flags: number;
  /** The serialized `tracestate`, or '' for none. */
  traceState: string;
};

export const FLAG_SAMPLED = 1;

// version-traceid-parentid-flags; version ff and all-zero ids are invalid; version 00 has nothing after.
const TRACEPARENT =
  /^\s?((?!ff)[\da-f]{2})-((?![0]{32})[\da-f]{32})-((?![0]{16})[\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;

/** The client's span from `traceparent` (and `tracestate`), or undefined when it is not valid W3C. */
export function parseTraceparent(traceparent: unknown, tracestate: unknown): SpanRef | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const m = TRACEPARENT.exec(traceparent);
  if (!m) return undefined;
  if (m[1] === '00' && m[5]) return undefined;
  return {
    traceId: m[2] as string,
    spanId: m[3] as string,
    flags: Number.parseInt(m[4] as string, 16),
    traceState: typeof tracestate === 'string' ? cleanTraceState(tracestate) : '',
  };
}

/** The `traceparent` value naming span `spanId` of trace `traceId` as the parent (no object per call). */
export const formatTraceparent = (traceId: string, spanId: string, flags: number): string =>
  `00-${traceId}-${spanId}-${(flags & 0xff).toString(16).padStart(2, '0')}`;

const KEY_CHARS = '[_0-9a-z-*/]';
const VALID_KEY = new RegExp(
  `^(?:[a-z]${KEY_CHARS}{0,255}|[a-z0-9]${KEY_CHARS}{0,240}@[a-z]${KEY_CHARS}{0,13})$`,
);
const VALID_VALUE = /^[ -~]{0,255}[!-~]$/;
const COMMA_OR_EQUAL = /,|=/;
const MAX_STATE_CHARS = 512;
const MAX_STATE_ITEMS = 32;

/** `tracestate` with its invalid members dropped, as the OTel SDK keeps it (a repeated key: its first member). */
export function cleanTraceState(raw: string): string {
  if (raw.length > MAX_STATE_CHARS) return '';
  const kept = new Map<string, string>();
  for (const part of raw.split(',')) {
    const member = part.trim();
    const eq = member.indexOf('=');
    if (eq === -1) continue;
    const key = member.slice(0, eq);
    const value = member.slice(eq + 1);
    if (kept.has(key) || !VALID_KEY.test(key)) continue;
    if (!VALID_VALUE.test(value) || COMMA_OR_EQUAL.test(value)) continue;
    kept.set(key, value);
    if (kept.size === MAX_STATE_ITEMS) break;
  }
  return [...kept].map(([k, v]) => `${k}=${v}`).join(',');
}

// Random bytes are drawn from the system a pool at a time: one syscall per 256 spans.
const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const at = used;
  used += bytes;
  // An all-zero id is invalid (W3C); the chance is 2^-64 or less, but the id must still be valid.
  let zero = true;
  for (let i = at; i < at + bytes; i++) if (pool[i] !== 0) zero = false;
  if (zero) pool[at + bytes - 1] = 1;
  return pool.toString('hex', at, at + bytes);
}

export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);

// Wall-clock nanoseconds from the monotonic clock, anchored once (microsecond precision at the anchor).
const anchorNs =
  BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n -
  process.hrtime.bigint();

/** Now, in nanoseconds since the Unix epoch. */
export const nowNs = (): bigint => anchorNs + process.hrtime.bigint();
