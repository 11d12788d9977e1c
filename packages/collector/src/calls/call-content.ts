// What a stored call span captured of its payloads, as values: the arguments (through the dialect's own
// unwrapping), the result, and the output that broke the contract (`toolscope.output.rejected`). Present only
// when content capture was on where the span was made or at the collector, and then already redacted.
import * as sc from '@toolscope/instrument/semconv';
import type { DialectSpan } from './dialects.js';
import { argumentsOf, recogniseCall } from './recognise.js';

/** The payloads a span kept; each undefined when it kept none. */
export type CallContent = { input: unknown; result: unknown; rejectedOutput: unknown };

/** A payload attribute as a value: its JSON when it parses, else the text itself (also the ingest's reading). */
export function parsed(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    // Not JSON: the text itself is the value.
    return v;
  }
}

export function callContentOf(span: DialectSpan): CallContent {
  const r = recogniseCall(span);
  const a = span.attributes;
  return {
    input: r ? argumentsOf(r, a) : undefined,
    result: r?.resultKey === undefined ? undefined : parsed(a[r.resultKey]),
    rejectedOutput: parsed(a[sc.ATTR_TOOLSCOPE_OUTPUT_REJECTED]),
  };
}
