// What a model call is: one request to a language model between an agent's tool calls, read from any dialect
// of model-dialects.ts. The story view puts these between the calls; loop detection counts their tokens as
// what a loop cost.
import type { DialectSpan } from './dialects.js';
import { MODEL_DIALECTS, type ModelCallSource } from './model-dialects.js';
import { firstValue } from './recognise.js';

export type ModelCall = {
  source: ModelCallSource;
  /** The provider (`openai`, `anthropic`, the AI SDK's provider id). */
  system: string | null;
  /** The model that answered, else the one asked for. */
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  finishReason: string | null;
};

const MAX_TEXT = 256;

function text(v: unknown): string | null {
  if (typeof v !== 'string' || v === '') return null;
  return v.length > MAX_TEXT ? v.slice(0, MAX_TEXT) : v;
}

/** A token count: a whole number ≥ 0 (OTLP int64 may arrive as a decimal string). */
function tokens(v: unknown): number | null {
  const n = typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function reason(v: unknown): string | null {
  return text(Array.isArray(v) ? v[0] : v);
}

/** The model call a span records, or null when it is none. */
export function modelCallOf(span: DialectSpan): ModelCall | null {
  for (const d of MODEL_DIALECTS) {
    if (!d.matches(span)) continue;
    const a = span.attributes;
    return {
      source: d.source,
      system: text(firstValue(a, d.system)),
      model: text(firstValue(a, d.model)),
      inputTokens: tokens(firstValue(a, d.inputTokens)),
      outputTokens: tokens(firstValue(a, d.outputTokens)),
      finishReason: reason(firstValue(a, d.finishReason)),
    };
  }
  return null;
}

/** Input plus output tokens of a model call (0 for what it did not report). */
export const modelTokens = (m: ModelCall): number => (m.inputTokens ?? 0) + (m.outputTokens ?? 0);
