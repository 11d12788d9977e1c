// The contract flags at read time (detectors/contract-flags.ts) from the catalog and the usage of deprecated
// tools, and the changed paths added to the schema flags drift produced.

import type { DiffableContract } from '../contracts/schema-diff.js';
import {
  type ContractWeight,
  type DeprecatedUsage,
  deprecatedFlags,
  heavySchemaFlags,
  withContractChanges,
} from '../detectors/contract-flags.js';
import type { SchemaRow } from '../detectors/drift.js';
import type { Flag } from '../detectors/flag.js';
import type {
  ContractSchema,
  ContractSummary,
  SpanReader,
  ToolUsage,
  VersionCalls,
} from '../storage/contract.js';

/**
 * Who called a deprecated tool and its first and newest call (null when none is in the window); a server-only
 * deployment has no caller spans, so its servers stand in.
 */
export function deprecatedUsageOf(
  contract: ContractWeight,
  u: ToolUsage,
  seen: VersionCalls,
): DeprecatedUsage | null {
  if (!seen.first || !seen.newest) return null;
  return {
    contract,
    calls: u.calls,
    first: seen.first,
    newest: seen.newest,
    callers: u.clientServices.length ? u.clientServices : u.serverServices,
    services: u.serverServices,
    conversations: u.conversations,
    clients: u.clients,
    traceIds: u.traceIds,
  };
}

/** The contracts whose weight matters for the window: reported in it, or of a tool called in it. */
export function liveContracts(
  summaries: ContractSummary[],
  sinceNs: bigint,
  schemas: SchemaRow[],
): ContractSummary[] {
  const called = new Set(schemas.map((s) => s.tool));
  return summaries.filter((c) => c.lastNs >= sinceNs || called.has(c.tool));
}

/** Reported schemas by tool and hash, as the schema diff looks them up. */
export function contractsByHash(schemas: ContractSchema[]): Map<string, DiffableContract> {
  return new Map(
    schemas.map((c) => [
      `${c.tool}\u0000${c.schemaHash}`,
      { description: c.description, inputSchema: c.inputSchema, outputSchema: c.outputSchema },
    ]),
  );
}

/** The drift flags with their contract changes, then heavy_schema and deprecated_tool_in_use (of `summaries`). */
export async function readContractFlags(
  reader: SpanReader,
  sinceNs: bigint,
  untilNs: bigint,
  tool: string | undefined,
  budget: number,
  summaries: ContractSummary[],
  drift: { flags: Flag[]; schemas: SchemaRow[] },
): Promise<Flag[]> {
  const { flags: driftFlags, schemas } = drift;
  const deprecated = summaries.filter((s) => s.deprecated);
  const [usages, changed] = await Promise.all([
    Promise.all(
      deprecated.map(async (c) => {
        const [usage, seen] = await Promise.all([
          reader.toolUsage(c.tool, sinceNs, untilNs),
          reader.versionCalls(c.tool, undefined, sinceNs, untilNs),
        ]);
        return deprecatedUsageOf(c, usage, seen);
      }),
    ),
    driftFlags.some((f) => f.kind !== 'heavy_schema')
      ? reader
          .contractSchemas(tool)
          .then((c) => withContractChanges(driftFlags, schemas, contractsByHash(c)))
      : Promise.resolve(driftFlags),
  ]);
  return [
    ...changed,
    ...heavySchemaFlags(liveContracts(summaries, sinceNs, schemas), budget),
    ...deprecatedFlags(
      usages.filter((u) => u !== null),
      Number(untilNs / 1_000_000n),
    ),
  ];
}
