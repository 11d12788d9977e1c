// A span's tool call in dialect-neutral terms: which dialect, the tool's name, call and conversation ids, and
// where its arguments and result are. Everything downstream (the tool-call row, collector-side hashing,
// content capture) reads this, never a dialect's attribute names.
import {
  type Attributes,
  type CallSource,
  DIALECTS,
  type Dialect,
  type DialectSpan,
} from './dialects.js';

/**
 * What recognition reads of a span: a normalized span at intake and a stored span read back both fit, so one
 * function reads a call at either end.
 */
export type CallSpan = DialectSpan & {
  kind: number;
  statusCode: number;
  startNs: bigint;
  endNs: bigint;
  resource: Attributes;
  events: readonly { name: string; attributes: Attributes }[];
};

export type RecognisedCall = {
  source: CallSource;
  tool: string;
  callId: unknown;
  conversationId: unknown;
  /** Attribute keys holding the arguments and the result, present on this span. */
  argsKey: string | undefined;
  resultKey: string | undefined;
  dialect: Dialect;
};

function first(a: Attributes, keys: readonly string[]): string | undefined {
  for (const k of keys) if (a[k] !== undefined) return k;
  return undefined;
}

/** The tool's name as the dialect records it, or undefined when the span names none. */
export function toolNameOf(d: Dialect, span: DialectSpan): string | undefined {
  const key = first(span.attributes, d.tool);
  const v = key === undefined ? undefined : span.attributes[key];
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number') return String(v);
  return d.spanName && span.name !== '' ? span.name : undefined;
}

/** The value of the first of `keys` the span has. */
export function firstValue(a: Attributes, keys: readonly string[]): unknown {
  const key = first(a, keys);
  return key === undefined ? undefined : a[key];
}

/**
 * The dialect whose tool call a span records, or null. Runs on every span at ingest (twice: the content rules
 * and the tool-call row), so it allocates nothing.
 */
export function dialectOf(span: DialectSpan): Dialect | null {
  for (const d of DIALECTS) if (d.matches(span)) return d;
  return null;
}

/** The tool call a span records in dialect `d`, or null when the span names no tool. */
export function recogniseCall(span: DialectSpan, d = dialectOf(span)): RecognisedCall | null {
  if (!d) return null;
  const tool = toolNameOf(d, span);
  if (tool === undefined) return null;
  const a = span.attributes;
  return {
    source: d.source,
    tool,
    callId: firstValue(a, d.callId),
    conversationId: firstValue(a, d.conversationId),
    argsKey: first(a, d.args),
    resultKey: first(a, d.result),
    dialect: d,
  };
}

/** The arguments of a recognised call as a value: parsed from JSON when the dialect recorded a string. */
export function argumentsOf(call: RecognisedCall, a: Attributes): unknown {
  if (call.argsKey === undefined) return undefined;
  let v: unknown = a[call.argsKey];
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      // Not JSON: the string itself is the argument (hashed as a JSON string).
    }
  }
  return call.dialect.argsOf ? call.dialect.argsOf(v) : v;
}
