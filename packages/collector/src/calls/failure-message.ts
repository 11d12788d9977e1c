// The message a failed call gave the agent, where the failure carried one of the envelope's (docs/defining-tools.md): read
// from the captured result (the envelope itself, or an MCP result whose structuredContent is the envelope).
// Only envelope messages count: they come from a small set (fixed wordings per tool and code, and the author's
// REJECTED messages), so grouping by them says which wording leads a model to repair; free text is left out.
import { toolFailureSchema } from '@toolscope/instrument/contract';
import { redactString } from '@toolscope/instrument/shared-rules';
import type { CallContent } from './call-content.js';

/** Longest message kept: the envelope's own messages are one or two sentences. */
export const MAX_FAILURE_MESSAGE_CHARS = 200;

function envelopeMessage(v: unknown): string | null {
  const e = toolFailureSchema.safeParse(v);
  return e.success ? e.data.message : null;
}

/** The envelope message a failed call carried, redacted and bounded; null when its result was not captured. */
export function failureMessageOf(content: CallContent): string | null {
  const r = content.result;
  const message =
    envelopeMessage(r) ??
    (typeof r === 'object' && r !== null
      ? envelopeMessage(Reflect.get(r, 'structuredContent'))
      : null);
  return message === null ? null : redactString(message, MAX_FAILURE_MESSAGE_CHARS);
}
