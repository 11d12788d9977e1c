// Reads what the timeline shows out of stored spans: attribute values arrive as unknown JSON and are
// checked here, never trusted, and nothing is interpreted as markup.
import type { SpanOut } from '@toolscope/collector/schemas';
import { z } from 'zod';

const issuesSchema = z.array(
  z.object({ path: z.string(), code: z.string().catch(''), message: z.string().catch('') }),
);

export type ToolCallView = {
  tool: string;
  attempt: number | null;
  code: string | null;
  reason: string | null;
  retryable: boolean | null;
  /** null when the span did not say (a caller's span, most foreign dialects): shown as "–". */
  partialEffect: boolean | null;
  effect: string | null;
  /** What the call threw: the span's last `exception` event (the message as the collector stored it). */
  exceptionType: string | null;
  exceptionMessage: string | null;
  version: string | null;
  schemaHash: string | null;
  inputShape: string | null;
  inputHash: string | null;
  callId: string | null;
  issues: z.infer<typeof issuesSchema>;
  arguments: string | null;
  result: string | null;
  replay: boolean;
  client: boolean;
};

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);
const num = (v: unknown): number | null =>
  typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;

function parseIssues(v: unknown): ToolCallView['issues'] {
  if (typeof v !== 'string') return [];
  try {
    const parsed = issuesSchema.safeParse(JSON.parse(v));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

function exceptionOf(span: SpanOut): {
  exceptionType: string | null;
  exceptionMessage: string | null;
} {
  const event = span.events.findLast((e) => e.name === 'exception');
  return {
    exceptionType: str(event?.attributes['exception.type']),
    exceptionMessage: str(event?.attributes['exception.message']),
  };
}

/** The tool-call reading of a span, or null when it is not a tool span. */
export function toolCallOf(span: SpanOut): ToolCallView | null {
  const a = span.attributes;
  const tool = str(a['gen_ai.tool.name']);
  if (tool === null) return null;
  const code = str(a['toolscope.error.code']) ?? str(a['error.type']);
  return {
    tool,
    attempt: num(a['toolscope.attempt']),
    code: code ?? (span.status.code === 2 ? 'ERROR' : null),
    reason: str(a['toolscope.error.reason']) ?? (span.status.message || null),
    retryable: bool(a['toolscope.retryable']),
    partialEffect: bool(a['toolscope.partial_effect']),
    effect: str(a['toolscope.effect']),
    ...exceptionOf(span),
    version: str(a['toolscope.schema.version']),
    schemaHash: str(a['toolscope.schema.hash']),
    inputShape: str(a['toolscope.input.shape']),
    inputHash: str(a['toolscope.input.hash']),
    callId: str(a['gen_ai.tool.call.id']),
    issues: parseIssues(a['toolscope.validation.issues']),
    arguments: str(a['gen_ai.tool.call.arguments']),
    result: str(a['gen_ai.tool.call.result']),
    replay: a['toolscope.idempotent_replay'] === true,
    client: span.kind === 3,
  };
}

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
