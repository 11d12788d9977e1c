// What a tool's result costs the model's context (seed 003): the UTF-8 bytes of its JSON text and approximate
// tokens, counted by walking the value, so a large result is never copied into a second string to be measured.
// The token count is an estimate calibrated against the o200k_base encoding (docs/decisions/0010): word pieces,
// number groups, punctuation and non-ASCII characters each weigh what they usually weigh in BPE vocabularies.
// Cost is capped: past TOKEN_SCAN_CHARS of text, bytes are still counted exactly (Buffer.byteLength, native)
// but tokens are scaled from the part scanned, and past MAX_NODES values the walk stops and says so.
import type { Attributes } from '@opentelemetry/api';
import * as sc from './semconv.js';

export type OutputSize = {
  bytes: number;
  tokens: number;
  /** True when the token count was scaled from a prefix, or the walk stopped at MAX_NODES. */
  estimated: boolean;
};

/** Characters of text scanned for tokens; beyond, tokens are scaled by bytes. */
export const TOKEN_SCAN_CHARS = 64 * 1024;
/** Values visited at most; a larger result is measured up to here and marked estimated. */
export const MAX_NODES = 200_000;
const MAX_DEPTH = 64;

// Weights of one piece, fitted to o200k_base on JSON listings, schemas, prose, code and CJK text (decision 0010).
const LETTERS_PER_TOKEN = 8;
const DIGITS_PER_TOKEN = 3;
const PUNCTUATION = 0.55;
const NON_ASCII = 0.8;

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** Approximate o200k tokens of `text[0, end)`. */
function piecesOf(text: string, end: number): number {
  let tokens = 0;
  let i = 0;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (isLetter(c)) {
      let j = i + 1;
      while (j < end && isLetter(text.charCodeAt(j))) j++;
      tokens += Math.ceil((j - i) / LETTERS_PER_TOKEN);
      i = j;
    } else if (isDigit(c)) {
      let j = i + 1;
      while (j < end && isDigit(text.charCodeAt(j))) j++;
      tokens += Math.ceil((j - i) / DIGITS_PER_TOKEN);
      i = j;
    } else {
      // A surrogate pair is one character in two code units: each half weighs half.
      if (c >= 0xd800 && c <= 0xdfff) tokens += NON_ASCII / 2;
      else if (c >= 0x80) tokens += NON_ASCII;
      else if (!isSpace(c)) tokens += PUNCTUATION;
      i++;
    }
  }
  return tokens;
}

/** Approximate tokens of a text: the counter used for results and for schemas alike. */
export function approxTokens(text: string): number {
  return Math.round(measureText(text, { scanned: 0 }).tokens);
}

type Budget = { scanned: number };

/** Tokens and UTF-8 bytes of a text (bytes exact; tokens scaled past the scan budget). */
function measureText(
  text: string,
  budget: Budget,
): { tokens: number; bytes: number; scaled: boolean } {
  const bytes = Buffer.byteLength(text);
  const room = Math.max(0, TOKEN_SCAN_CHARS - budget.scanned);
  const end = Math.min(text.length, room);
  budget.scanned += end;
  const tokens = piecesOf(text, end);
  if (end === text.length) return { tokens, bytes, scaled: false };
  // Scale what was read by the share of the text it was.
  const readBytes = end === 0 ? 0 : Buffer.byteLength(text.slice(0, end));
  const rate = readBytes === 0 ? 1 / 4 : tokens / readBytes;
  return { tokens: tokens + rate * (bytes - readBytes), bytes, scaled: true };
}

/**
 * Bytes JSON escaping adds to a string: `"` and `\` one each, control characters one or five, and a lone
 * surrogate three (written as `\udXXX`, six bytes, where UTF-8 would have taken three for U+FFFD).
 */
function escapeBytes(text: string, end: number): number {
  let extra = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92) extra += 1;
    else if (c < 32) extra += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else extra += 3;
    } else if (c >= 0xdc00 && c <= 0xdfff) extra += 3;
  }
  return extra;
}

class Walk {
  bytes = 0;
  tokens = 0;
  nodes = 0;
  estimated = false;
  readonly budget: Budget = { scanned: 0 };
  readonly seen = new Set<object>();

  punct(n: number): void {
    this.bytes += n;
    this.tokens += n * PUNCTUATION;
  }

  string(text: string): void {
    const m = measureText(text, this.budget);
    // Escapes are counted over the part scanned; beyond it they are rare enough to leave out.
    this.bytes += m.bytes + escapeBytes(text, Math.min(text.length, TOKEN_SCAN_CHARS)) + 2;
    this.tokens += m.tokens + 2 * PUNCTUATION;
    if (m.scaled) this.estimated = true;
  }

  /** Adds `value` as JSON.stringify writes it; returns false where JSON leaves it out (undefined, functions). */
  value(input: unknown, depth: number): boolean {
    if (++this.nodes > MAX_NODES || depth > MAX_DEPTH) {
      this.estimated = true;
      return true;
    }
    let value = input;
    if (
      typeof value === 'object' &&
      value !== null &&
      typeof Reflect.get(value, 'toJSON') === 'function'
    )
      value = (value as { toJSON: () => unknown }).toJSON();
    switch (typeof value) {
      case 'string':
        this.string(value);
        return true;
      case 'number':
      case 'bigint': {
        const text = typeof value === 'number' && !Number.isFinite(value) ? 'null' : String(value);
        this.bytes += text.length;
        this.tokens += piecesOf(text, text.length);
        return true;
      }
      case 'boolean':
        this.bytes += value ? 4 : 5;
        this.tokens += 1;
        return true;
      case 'object':
        break;
      default:
        return false;
    }
    if (value === null) {
      this.bytes += 4;
      this.tokens += 1;
      return true;
    }
    if (this.seen.has(value)) {
      this.estimated = true;
      return true;
    }
    this.seen.add(value);
    try {
      if (Array.isArray(value)) this.array(value, depth);
      else this.object(value as Record<string, unknown>, depth);
    } finally {
      this.seen.delete(value);
    }
    return true;
  }

  array(items: unknown[], depth: number): void {
    this.punct(2 + Math.max(0, items.length - 1));
    for (const item of items) {
      // JSON writes `null` for what it cannot hold inside an array.
      if (!this.value(item, depth + 1)) {
        this.bytes += 4;
        this.tokens += 1;
      }
    }
  }

  object(record: Record<string, unknown>, depth: number): void {
    this.punct(2);
    let written = 0;
    for (const key of Object.keys(record)) {
      const before = { bytes: this.bytes, tokens: this.tokens };
      this.string(key);
      this.punct(1);
      if (!this.value(record[key], depth + 1)) {
        // Left out by JSON: take the key back.
        this.bytes = before.bytes;
        this.tokens = before.tokens;
        continue;
      }
      written++;
    }
    if (written > 1) this.punct(written - 1);
  }
}

/** UTF-8 bytes of `JSON.stringify(value)` and its approximate tokens, without building the text. */
export function measureJson(value: unknown): OutputSize {
  const walk = new Walk();
  if (!walk.value(value, 0)) return { bytes: 0, tokens: 0, estimated: false };
  return { bytes: walk.bytes, tokens: Math.round(walk.tokens), estimated: walk.estimated };
}

/** The span attributes of a measured result. */
export function outputAttributes(size: OutputSize, into: Attributes = {}): Attributes {
  into[sc.ATTR_TOOLSCOPE_OUTPUT_BYTES] = size.bytes;
  into[sc.ATTR_TOOLSCOPE_OUTPUT_TOKENS] = size.tokens;
  if (size.estimated) into[sc.ATTR_TOOLSCOPE_OUTPUT_ESTIMATED] = true;
  return into;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An MCP `CallToolResult` as the model sees it: its `content` and `structuredContent`, and the item counts. */
export function mcpOutputAttributes(result: unknown, into: Attributes = {}): Attributes {
  if (!isRecord(result)) return into;
  const content = Array.isArray(result.content) ? result.content : [];
  const seen: Record<string, unknown> = { content };
  if (result.structuredContent !== undefined) seen.structuredContent = result.structuredContent;
  outputAttributes(measureJson(seen), into);
  into[sc.ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS] = content.length;
  into[sc.ATTR_TOOLSCOPE_OUTPUT_RESOURCE_LINKS] = content.filter(
    (item) => isRecord(item) && item.type === 'resource_link',
  ).length;
  return into;
}
