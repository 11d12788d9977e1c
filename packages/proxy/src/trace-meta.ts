// The one change the proxy makes to a request: its own span's `traceparent` in `params._meta` of a `tools/call`,
// written into the line's bytes in place (the client's `traceparent` value replaced, or the key inserted), so
// every other byte reaches the upstream as the client wrote it. JSON's structure is ASCII, so the scan works on
// the UTF-8 bytes directly; a line it cannot follow is left alone.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

function skipSpace(b: Buffer, i: number): number {
  while (i < b.length && isSpace(b[i])) i++;
  return i;
}

/** Index after the string starting at `i` (a quote), or -1. */
function skipString(b: Buffer, i: number): number {
  for (let j = i + 1; j < b.length; j++) {
    const c = b[j];
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  return -1;
}

/** Index after the value starting at `i`, or -1. */
function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const d = b[j];
      if (d === QUOTE) {
        j = skipString(b, j) - 1;
        if (j < 0) return -1;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (
    j < b.length &&
    b[j] !== COMMA &&
    b[j] !== CLOSE_BRACE &&
    b[j] !== CLOSE_BRACKET &&
    !isSpace(b[j])
  )
    j++;
  return j > i ? j : -1;
}

/** Where one member's value lies in the line; `empty` tells of the object that was scanned for it. */
type Found = { valueStart: number; valueEnd: number } | undefined;
type ObjectScan = { member: Found; empty: boolean } | undefined;

/** Whether the raw key text between `from` and `to` is `key`'s bytes (JSON escapes are not undone, as before). */
function keyIs(b: Buffer, from: number, to: number, key: Uint8Array): boolean {
  if (to - from !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (b[from + k] !== key[k]) return false;
  return true;
}

/**
 * The object starting at `i` (a brace), scanned to its end, and its member `key` (the last of a repeated key).
 * Keys are compared as bytes: no Map or key string per member, as the line's every member is walked.
 */
function scanObject(b: Buffer, i: number, key: Uint8Array): ObjectScan {
  if (b[i] !== OPEN_BRACE) return undefined;
  let j = skipSpace(b, i + 1);
  if (b[j] === CLOSE_BRACE) return { member: undefined, empty: true };
  let member: Found;
  for (;;) {
    if (b[j] !== QUOTE) return undefined;
    const keyEnd = skipString(b, j);
    if (keyEnd < 0) return undefined;
    const isKey = keyIs(b, j + 1, keyEnd - 1, key);
    j = skipSpace(b, keyEnd);
    if (b[j] !== COLON) return undefined;
    const valueStart = skipSpace(b, j + 1);
    const valueEnd = skipValue(b, valueStart);
    if (valueEnd < 0) return undefined;
    if (isKey) member = { valueStart, valueEnd };
    j = skipSpace(b, valueEnd);
    if (b[j] === CLOSE_BRACE) return { member, empty: false };
    if (b[j] !== COMMA) return undefined;
    j = skipSpace(b, j + 1);
  }
}

const PARAMS = Buffer.from('params');
const META = Buffer.from('_meta');
const TRACEPARENT = Buffer.from('traceparent');

/** `b` with the bytes from `at` to `end` replaced by `text`, in one allocation. */
function splice(b: Buffer, at: number, end: number, text: string): Buffer {
  const n = text.length;
  let ascii = true;
  for (let i = 0; i < n && ascii; i++) ascii = text.charCodeAt(i) < 0x80;
  // The proxy's own members are ASCII (a traceparent is hex and dashes): copied without a UTF-8 encoder call.
  const size = ascii ? n : Buffer.byteLength(text);
  const out = Buffer.allocUnsafe(b.length - (end - at) + size);
  b.copy(out, 0, 0, at);
  if (ascii) for (let i = 0; i < n; i++) out[at + i] = text.charCodeAt(i);
  else out.write(text, at, size, 'utf8');
  b.copy(out, at + size, end);
  return out;
}

/** `text` as a JSON string: as it is between quotes when nothing in it needs escaping (a traceparent never does). */
function quoted(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/** The `_meta` key under which the instrumented client passes its conversation on (docs/mcp.md). */
const CONVERSATION_KEY = 'toolscope.dev/conversation-id';

/**
 * The request line with `params._meta.traceparent` set to `traceparent`: the existing value replaced, or the
 * member inserted first into `_meta` (made if missing). With `conversationId`, `_meta` also gets that
 * conversation (the caller gives one only when `_meta` has none), inserted first as well. Undefined when the
 * line is not an object whose `params` (and `_meta`, if present) are objects.
 */
export function withTraceparent(
  line: Buffer,
  traceparent: string,
  conversationId?: string,
): Buffer | undefined {
  const params = scanObject(line, skipSpace(line, 0), PARAMS)?.member;
  if (!params) return undefined;
  const paramsScan = scanObject(line, params.valueStart, META);
  if (!paramsScan) return undefined;
  const value = quoted(traceparent);
  const conversation =
    conversationId === undefined ? '' : `${quoted(CONVERSATION_KEY)}:${quoted(conversationId)}`;
  // The members the proxy inserts, when `_meta` has no traceparent (or there is no `_meta`).
  const members = conversation
    ? `"traceparent":${value},${conversation}`
    : `"traceparent":${value}`;
  const meta = paramsScan.member;
  if (!meta) {
    const member = `"_meta":{${members}}${paramsScan.empty ? '' : ','}`;
    return splice(line, params.valueStart + 1, params.valueStart + 1, member);
  }
  const metaScan = scanObject(line, meta.valueStart, TRACEPARENT);
  if (!metaScan) return undefined;
  const existing = metaScan.member;
  if (existing) {
    const replaced = splice(line, existing.valueStart, existing.valueEnd, value);
    // The value replaced lies after `_meta`'s brace, so the brace is where it was.
    return conversation
      ? splice(replaced, meta.valueStart + 1, meta.valueStart + 1, `${conversation},`)
      : replaced;
  }
  const member = `${members}${metaScan.empty ? '' : ','}`;
  return splice(line, meta.valueStart + 1, meta.valueStart + 1, member);
}
