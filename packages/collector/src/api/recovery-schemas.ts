// The shapes of GET /api/tools/:name/recovery and GET /api/recovery (docs/recovery.md): Zod schemas, the single
// source of their types for the dashboard and `report`.
import { z } from 'zod';

const count = z.number().int();

export const recoveryOutcomesSchema = z.object({
  repaired: count,
  failed_again: count,
  repeated: count,
  switched: count,
  gave_up: count,
});

export const recoveryRowSchema = z.object({
  failures: count,
  outcomes: recoveryOutcomesSchema,
  /** The same tool came next, but whether its input changed is unknown (no input hash). */
  unknownInput: count,
  /** Failures whose next call, of the same tool, succeeded (repaired, or repeated with success). */
  recovered: count,
  /** repaired ÷ failures whose outcome is known; null without any. */
  repairRate: z.number().nullable(),
  /** recovered ÷ failures; null without any. */
  recoveredRate: z.number().nullable(),
});
export type RecoveryRowOut = z.infer<typeof recoveryRowSchema>;

export const codeRecoverySchema = recoveryRowSchema.extend({ code: z.string() });
export const messageRecoverySchema = recoveryRowSchema.extend({
  code: z.string(),
  /** The envelope message the failures carried (captured results only). */
  message: z.string(),
});

const windowFields = {
  since: z.string(),
  until: z.string(),
  /** Failures in the range; `failures` of them (the newest) were classified. */
  failuresInRange: count,
  /** The range held more failures than one answer classifies. */
  limited: z.boolean(),
};

export const toolRecoveryResponseSchema = recoveryRowSchema.extend({
  tool: z.string(),
  ...windowFields,
  byCode: z.array(codeRecoverySchema),
  byMessage: z.array(messageRecoverySchema),
});
export type ToolRecoveryResponse = z.infer<typeof toolRecoveryResponseSchema>;

export const recoveryResponseSchema = recoveryRowSchema.extend({
  ...windowFields,
  tools: z.array(
    recoveryRowSchema.extend({ tool: z.string(), byCode: z.array(codeRecoverySchema) }),
  ),
});
export type RecoveryResponse = z.infer<typeof recoveryResponseSchema>;
