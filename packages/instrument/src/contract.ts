// Zod schemas of the envelope (docs/defining-tools.md): the single source of its types, shared with the collector.
import { z } from 'zod';
import { ERROR_CODES } from './semconv.js';

export const errorCodeSchema = z.enum([
  ERROR_CODES.INVALID_INPUT,
  ERROR_CODES.INVALID_OUTPUT,
  ERROR_CODES.RETRYABLE,
  ERROR_CODES.REJECTED,
  ERROR_CODES.FAILED,
]);

/** One field the caller has to fix: a dotted path, the Zod issue code and a message without the offending value. */
export const validationIssueSchema = z.object({
  path: z.string(),
  code: z.string(),
  message: z.string(),
});
export type ValidationIssue = z.infer<typeof validationIssueSchema>;

/** The `toolscope.validation.issues` attribute as the collector parses it. */
export const validationIssuesAttributeSchema = z.array(validationIssueSchema);

export const toolFailureSchema = z.object({
  ok: z.literal(false),
  code: errorCodeSchema,
  message: z.string(),
  issues: z.array(validationIssueSchema).optional(),
  reason: z.string().optional(),
  retryable: z.boolean(),
  partialEffect: z.boolean(),
  attempt: z.number().int().min(1),
});
export type ToolFailure = z.infer<typeof toolFailureSchema>;

/** Builds the schema of a whole envelope around a tool's output schema. */
export function toolResultSchema<T extends z.ZodType>(data: T) {
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), data, attempt: z.number().int().min(1) }),
    toolFailureSchema,
  ]);
}

export type ToolSuccess<T> = { ok: true; data: T; attempt: number };
export type ToolResult<T> = ToolSuccess<T> | ToolFailure;
