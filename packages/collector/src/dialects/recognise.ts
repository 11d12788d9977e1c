// A span's tool call in dialect-neutral terms: which dialect, the tool's name, call and conversation ids, and
// where its arguments and result are. Everything downstream (the tool-call row, collector-side hashing,
// content capture) reads this, never a dialect's attribute names.
import type { AttrMap, AttrValue } from '../otlp/model.js';
import { type CallSource, DIALECTS, type Dialect, type DialectSpan } from './dialects.js';

export type RecognisedCall = {
  source: CallSource;
  tool: string;
  callId: AttrValue | undefined;
  conversationId: AttrValue | undefined;
  /** Attribute keys holding the arguments and the result, present on this span. */
  argsKey: string | undefined;
  resultKey: string | undefined;
  dialect: Dialect;
};

function first(a: AttrMap, keys: readonly string[]): string | undefined {
  for (const k of keys) if (a[k] !== undefined) return k;
  return undefined;
}

function toolName(d: Dialect, span: DialectSpan): string | undefined {
  const key = first(span.attributes, d.tool);
  const v = key === undefined ? undefined : span.attributes[key];
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number') return String(v);
  return d.spanName && span.name !== '' ? span.name : undefined;
}

/** The tool call a span records, or null when no dialect recognises it as one. */
export function recogniseCall(span: DialectSpan): RecognisedCall | null {
  const a = span.attributes;
  for (const d of DIALECTS) {
    if (!d.matches(span)) continue;
    const tool = toolName(d, span);
    if (tool === undefined) return null;
    const callIdKey = first(a, d.callId);
    const conversationKey = first(a, d.conversationId);
    return {
      source: d.source,
      tool,
      callId: callIdKey === undefined ? undefined : a[callIdKey],
      conversationId: conversationKey === undefined ? undefined : a[conversationKey],
      argsKey: first(a, d.args),
      resultKey: first(a, d.result),
      dialect: d,
    };
  }
  return null;
}

/** The arguments of a recognised call as a value: parsed from JSON when the dialect recorded a string. */
export function argumentsOf(call: RecognisedCall, a: AttrMap): unknown {
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
