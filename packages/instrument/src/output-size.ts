// What a tool's result costs the model's context: the UTF-8 bytes of its JSON text and approximate
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

// Weights of one piece, fitted to o200k_base on JSON listings, schemas, prose, code and CJK text (decision 0010),
// counted in twentieths of a token: every weight is a whole number of them, so a sum is exact whatever the order
// of the walk (the canonical walk visits keys sorted, canonical-bytes.ts) and rounds the same way.
/** Units per token. */
export const UNITS_PER_TOKEN = 20;
export const LETTERS_PER_TOKEN = 8;
export const DIGITS_PER_TOKEN = 3;
/** Units of one punctuation character. */
export const PUNCTUATION = 11;
/** Units of one non-ASCII character (a surrogate pair is one). */
export const NON_ASCII = 16;

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

// Side results of the last scan (module state instead of an object per string: this runs for every string of
// every result): the UTF-8 bytes of the part scanned, and the bytes JSON escaping adds to it.
let scannedBytes = 0;
let scannedEscapes = 0;

/**
 * Approximate o200k tokens of `text[0, end)` (in units), in one pass that also counts its UTF-8 bytes and its JSON escapes:
 * `"` and `\\` one byte each, control characters one or five, a lone surrogate three (written `\\udXXX`, six
 * bytes, where UTF-8 would have taken three for U+FFFD).
 */
function piecesOf(text: string, end: number): number {
  let tokens = 0;
  let bytes = 0;
  let escapes = 0;
  let i = 0;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (isLetter(c)) {
      let j = i + 1;
      while (j < end && isLetter(text.charCodeAt(j))) j++;
      tokens += Math.ceil((j - i) / LETTERS_PER_TOKEN) * UNITS_PER_TOKEN;
      bytes += j - i;
      i = j;
    } else if (isDigit(c)) {
      let j = i + 1;
      while (j < end && isDigit(text.charCodeAt(j))) j++;
      tokens += Math.ceil((j - i) / DIGITS_PER_TOKEN) * UNITS_PER_TOKEN;
      bytes += j - i;
      i = j;
    } else {
      if (c < 0x80) {
        bytes += 1;
        if (c === 34 || c === 92) escapes += 1;
        else if (c < 32) escapes += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5;
        if (!isSpace(c)) tokens += PUNCTUATION;
      } else if (c < 0x800) {
        bytes += 2;
        tokens += NON_ASCII;
      } else if (c >= 0xd800 && c <= 0xdbff) {
        const next = i + 1 < end ? text.charCodeAt(i + 1) : 0;
        if (next >= 0xdc00 && next <= 0xdfff) {
          // A pair is one character: four bytes, one non-ASCII weight.
          bytes += 4;
          tokens += NON_ASCII;
          i++;
        } else {
          bytes += 3;
          escapes += 3;
          tokens += NON_ASCII;
        }
      } else if (c >= 0xdc00 && c <= 0xdfff) {
        bytes += 3;
        escapes += 3;
        tokens += NON_ASCII;
      } else {
        bytes += 3;
        tokens += NON_ASCII;
      }
      i++;
    }
  }
  scannedBytes = bytes;
  scannedEscapes = escapes;
  return tokens;
}

/** Approximate tokens of a text: the counter used for results and for schemas alike. */
export function approxTokens(text: string): number {
  measureText(text, { scanned: 0 });
  return Math.round(textTokens / UNITS_PER_TOKEN);
}

type Budget = { scanned: number };

// Results of the last measureText, as module state for the same reason.
let textTokens = 0;
let textBytes = 0;

/**
 * Token units and UTF-8 bytes of a text (into textTokens, textBytes, scannedEscapes); bytes exact, tokens scaled past
 * the scan budget. True when they were scaled.
 */
function measureText(text: string, budget: Budget): boolean {
  const room = Math.max(0, TOKEN_SCAN_CHARS - budget.scanned);
  const end = Math.min(text.length, room);
  budget.scanned += end;
  const tokens = piecesOf(text, end);
  if (end === text.length) {
    textTokens = tokens;
    textBytes = scannedBytes;
    return false;
  }
  // Past the budget: the whole text's bytes natively, tokens scaled by the share of bytes read.
  const readBytes = scannedBytes;
  textBytes = Buffer.byteLength(text);
  const perByte = readBytes === 0 ? UNITS_PER_TOKEN / 4 : tokens / readBytes;
  textTokens = tokens + perByte * (textBytes - readBytes);
  return true;
}

/** Token units of a short ASCII text (a number as JSON writes it). */
export function asciiUnits(text: string): number {
  return piecesOf(text, text.length);
}

const MAX_KEY_CACHED = 64;
const MAX_KEYS_CACHED = 4096;
const keyWeights = new Map<string, { bytes: number; tokens: number }>();

class Walk {
  bytes = 0;
  /** Token units. */
  tokens = 0;
  nodes = 0;
  estimated = false;
  readonly budget: Budget = { scanned: 0 };

  punct(n: number): void {
    this.bytes += n;
    this.tokens += n * PUNCTUATION;
  }

  string(text: string): void {
    if (measureText(text, this.budget)) this.estimated = true;
    // Escapes are counted over the part scanned; beyond it they are rare enough to leave out.
    this.bytes += textBytes + scannedEscapes + 2;
    this.tokens += textTokens + 2 * PUNCTUATION;
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
        this.tokens += UNITS_PER_TOKEN;
        return true;
      case 'object':
        break;
      default:
        return false;
    }
    if (value === null) {
      this.bytes += 4;
      this.tokens += UNITS_PER_TOKEN;
      return true;
    }
    // No set of seen objects (it cost a third of the walk): a cycle ends at MAX_DEPTH, marked estimated.
    if (Array.isArray(value)) this.array(value, depth);
    else this.object(value as Record<string, unknown>, depth);
    return true;
  }

  array(items: unknown[], depth: number): void {
    this.punct(2 + Math.max(0, items.length - 1));
    for (const item of items) {
      // JSON writes `null` for what it cannot hold inside an array.
      if (!this.value(item, depth + 1)) {
        this.bytes += 4;
        this.tokens += UNITS_PER_TOKEN;
      }
    }
  }

  /** A key with its quotes and colon: keys repeat across a listing's items, so their weights are kept. */
  key(key: string): void {
    const known = keyWeights.get(key);
    if (known !== undefined) {
      this.bytes += known.bytes;
      this.tokens += known.tokens;
      return;
    }
    const bytes = this.bytes;
    const tokens = this.tokens;
    const scanned = this.budget.scanned + key.length <= TOKEN_SCAN_CHARS;
    this.string(key);
    this.punct(1);
    // Only a key scanned in full: a count scaled past the scan budget belongs to this walk alone.
    if (scanned && key.length <= MAX_KEY_CACHED && keyWeights.size < MAX_KEYS_CACHED)
      keyWeights.set(key, { bytes: this.bytes - bytes, tokens: this.tokens - tokens });
  }

  object(record: Record<string, unknown>, depth: number): void {
    this.punct(2);
    let written = 0;
    for (const key of Object.keys(record)) {
      const bytes = this.bytes;
      const tokens = this.tokens;
      this.key(key);
      if (!this.value(record[key], depth + 1)) {
        // Left out by JSON: take the key back.
        this.bytes = bytes;
        this.tokens = tokens;
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
  return {
    bytes: walk.bytes,
    tokens: Math.round(walk.tokens / UNITS_PER_TOKEN),
    estimated: walk.estimated,
  };
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
  let links = 0;
  for (const item of content) if (isRecord(item) && item.type === 'resource_link') links++;
  into[sc.ATTR_TOOLSCOPE_OUTPUT_RESOURCE_LINKS] = links;
  return into;
}
