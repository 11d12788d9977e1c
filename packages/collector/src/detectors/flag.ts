// The public shape of a flag (GET /api/flags): fields that do not apply are absent.
import { z } from 'zod';
import { LOOP_KINDS } from './loops/scope.js';

export const FLAG_KINDS = [
  ...LOOP_KINDS,
  'silent_schema_change',
  'version_skew',
  'input_drift',
  'output_drift',
  'heavy_schema',
  'deprecated_tool_in_use',
  'oversized_result',
  'result_growth',
] as const;

export const flagSchema = z.object({
  /** Stable across reads (detectors/flag-id.ts): what `toolscope fixtures --flag` and /api/fixtures take. */
  id: z.string().optional(),
  kind: z.enum(FLAG_KINDS),
  severity: z.enum(['warning', 'error']),
  tool: z.string(),
  version: z.string().optional(),
  traceId: z.string().optional(),
  conversationId: z.string().optional(),
  count: z.number().int(),
  firstSeen: z.string(),
  lastSeen: z.string(),
  summary: z.string(),
  evidence: z.object({
    traceIds: z.array(z.string()).optional(),
    paths: z.array(z.string()).optional(),
    schemaHashes: z.array(z.string()).optional(),
    // Additions beyond the list.
    spanIds: z.array(z.string()).optional(),
    shapes: z.array(z.string()).optional(),
    versions: z.array(z.string()).optional(),
    inputHash: z.string().optional(),
    /** What changed between the contracts involved, in JSON Schema terms (contracts/schema-diff.ts). */
    changes: z.array(z.string()).optional(),
    /** heavy_schema: the tools/list entry's weight and the budget it crossed. */
    schemaTokens: z.number().int().optional(),
    schemaBytes: z.number().int().optional(),
    budget: z.number().int().optional(),
    /** deprecated_tool_in_use: who still calls, the replacement and the time left. */
    services: z.array(z.string()).optional(),
    callers: z.array(z.string()).optional(),
    conversations: z.array(z.string()).optional(),
    /** MCP client names (clientInfo) of the calls. */
    clients: z.array(z.string()).optional(),
    replacedBy: z.string().optional(),
    sunset: z.string().optional(),
    daysLeft: z.number().int().optional(),
    /** oversized_result: the tokens of each listed call (as traceIds), the p95 and the budget it crossed. */
    resultTokens: z.array(z.number().int()).optional(),
    resultTokensP95: z.number().int().optional(),
    resultBytesP95: z.number().int().optional(),
    /** result_growth: the previous version's p95 (versions: [previous, grown]) and how many times larger. */
    previousTokensP95: z.number().int().optional(),
    previousBytesP95: z.number().int().optional(),
    ratio: z.number().optional(),
    /** Loop flags: what the loop cost after its first round (for a repeat, after its first call). */
    wasted: z
      .object({
        calls: z.number().int(),
        ms: z.number(),
        resultTokens: z.number().int(),
        modelTokens: z.number().int(),
        /**
         * The calls counted as wasted, each with its share of the above (the shares add up to it); absent on
         * flags stored before it was recorded. Sums over flags count each call once (waste-total.ts).
         */
        spans: z
          .array(
            z.object({
              spanId: z.string(),
              ms: z.number(),
              resultTokens: z.number().int(),
              modelTokens: z.number().int(),
            }),
          )
          .optional(),
      })
      .optional(),
    /** tool_cycle: the steps of one round, and how many rounds ran in a row. */
    cycle: z.array(z.object({ tool: z.string(), inputHash: z.string() })).optional(),
    rounds: z.number().int().optional(),
    /** argument_churn: the inputs tried, the code every call failed with, and the first failing path. */
    inputHashes: z.array(z.string()).optional(),
    code: z.string().optional(),
    path: z.string().optional(),
    /**
     * polling_faster_than_interval: the task's `tasks/get` polls, the poll interval the server asked for, and the
     * client's mean interval between polls (the call's duration over its polls), in milliseconds.
     */
    polls: z.number().int().optional(),
    pollIntervalMs: z.number().optional(),
    observedPollIntervalMs: z.number().optional(),
  }),
});
export type Flag = z.infer<typeof flagSchema>;
export const flagsResponseSchema = z.object({ flags: z.array(flagSchema) });
export type FlagsResponse = z.infer<typeof flagsResponseSchema>;

export { type TotalWasted, totalWasted, WasteSum, wastedDelta } from './waste-total.js';
