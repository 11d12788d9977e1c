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

type Member = { valueStart: number; valueEnd: number };
type ObjectScan = { members: Map<string, Member>; empty: boolean } | undefined;

/** The members of the object starting at `i` (a brace), by their raw key text; the last of a repeated key. */
function scanObject(b: Buffer, i: number): ObjectScan {
  if (b[i] !== OPEN_BRACE) return undefined;
  const members = new Map<string, Member>();
  let j = skipSpace(b, i + 1);
  if (b[j] === CLOSE_BRACE) return { members, empty: true };
  for (;;) {
    if (b[j] !== QUOTE) return undefined;
    const keyEnd = skipString(b, j);
    if (keyEnd < 0) return undefined;
    const key = b.toString('utf8', j + 1, keyEnd - 1);
    j = skipSpace(b, keyEnd);
    if (b[j] !== COLON) return undefined;
    const valueStart = skipSpace(b, j + 1);
    const valueEnd = skipValue(b, valueStart);
    if (valueEnd < 0) return undefined;
    members.set(key, { valueStart, valueEnd });
    j = skipSpace(b, valueEnd);
    if (b[j] === CLOSE_BRACE) return { members, empty: false };
    if (b[j] !== COMMA) return undefined;
    j = skipSpace(b, j + 1);
  }
}

const splice = (b: Buffer, at: number, end: number, text: string) =>
  Buffer.concat([b.subarray(0, at), Buffer.from(text, 'utf8'), b.subarray(end)]);

/**
 * The request line with `params._meta.traceparent` set to `traceparent`: the existing value replaced, or the
 * member inserted first into `_meta` (made if missing). Undefined when the line is not an object whose `params`
 * (and `_meta`, if present) are objects.
 */
export function withTraceparent(line: Buffer, traceparent: string): Buffer | undefined {
  const top = scanObject(line, skipSpace(line, 0));
  const params = top?.members.get('params');
  if (!params) return undefined;
  const paramsScan = scanObject(line, params.valueStart);
  if (!paramsScan) return undefined;
  const value = JSON.stringify(traceparent);
  const meta = paramsScan.members.get('_meta');
  if (!meta) {
    const member = `"_meta":{"traceparent":${value}}${paramsScan.empty ? '' : ','}`;
    return splice(line, params.valueStart + 1, params.valueStart + 1, member);
  }
  const metaScan = scanObject(line, meta.valueStart);
  if (!metaScan) return undefined;
  const existing = metaScan.members.get('traceparent');
  if (existing) return splice(line, existing.valueStart, existing.valueEnd, value);
  const member = `"traceparent":${value}${metaScan.empty ? '' : ','}`;
  return splice(line, meta.valueStart + 1, meta.valueStart + 1, member);
}
