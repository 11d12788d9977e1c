// The JSON API's shapes of a tool's contracts (GET /api/tools/:name/contracts and its diff), kept beside
// schemas.ts, which re-exports them. Fields may be added, never renamed.
import { z } from 'zod';

/** A tool's declared deprecation (its replacement and the end of its window), on a contract and a tool's stats. */
export const deprecationSchema = z.object({
  replacedBy: z.string().nullable(),
  sunset: z.string().nullable(),
});

export const toolContractSchema = z.object({
  version: z.string(),
  schemaHash: z.string(),
  services: z.array(z.string()),
  firstSeen: z.string(),
  lastSeen: z.string(),
  description: z.string().nullable(),
  inputSchema: z.unknown(),
  outputSchema: z.unknown(),
  schemaBytes: z.number().int().nullable(),
  schemaTokens: z.number().int().nullable(),
  deprecated: deprecationSchema.nullable(),
  // Additions beyond the list.
  annotations: z.unknown(),
  /** false when only calls named this hash: no contract span came, so its schemas are unknown. */
  reported: z.boolean(),
  calls: z.number().int(),
});
export type ToolContractOut = z.infer<typeof toolContractSchema>;
export const contractsResponseSchema = z.object({ contracts: z.array(toolContractSchema) });
export type ContractsResponse = z.infer<typeof contractsResponseSchema>;
export const contractChangeSchema = z.object({
  path: z.string(),
  change: z.enum(['added', 'removed', 'changed']),
  before: z.unknown(),
  after: z.unknown(),
});
export const contractDiffResponseSchema = z.object({ changes: z.array(contractChangeSchema) });
export type ContractDiffResponse = z.infer<typeof contractDiffResponseSchema>;
