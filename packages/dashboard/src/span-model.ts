// Helpers for showing stored spans: their depth in the tree, attribute values as text, payloads as JSON.
// What a span means (its tool call or model call) comes from the collector (`call`, `modelCall`), never from
// reading attributes here.
import type { SpanOut } from '@toolscope/collector/schemas';

/** Depth of each span in its trace (roots 0). */
export function depths(spans: SpanOut[]): Map<string, number> {
  const parent = new Map(spans.map((s) => [s.spanId, s.parentSpanId]));
  const out = new Map<string, number>();
  for (const s of spans) {
    let d = 0;
    let cur = s.parentSpanId;
    const seen = new Set([s.spanId]);
    while (cur && parent.has(cur) && !seen.has(cur) && d < 64) {
      seen.add(cur);
      d++;
      cur = parent.get(cur) ?? null;
    }
    out.set(s.spanId, d);
  }
  return out;
}

/** A value of an attribute as display text (JSON for lists and maps). */
export function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** Pretty-printed JSON when the text is JSON (captured payloads are), the text itself otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export const KIND_NAMES = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
