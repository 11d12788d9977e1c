// The contract flags of a window (detectors/contract-flags.ts) from the catalog and the calls of deprecated
// tools; and the changed paths added to the schema flags drift produced.

import { KIND_CLIENT } from '../../calls/sides.js';
import {
  type DeprecatedUsage,
  deprecatedFlags,
  heavySchemaFlags,
  withContractChanges,
} from '../../detectors/contract-flags.js';
import type { SchemaRow } from '../../detectors/drift.js';
import type { Flag } from '../../detectors/flag.js';
import { TOOL_IS } from '../call-row.js';
import { sideWhere } from '../call-side.js';
import type { ContractSummary } from '../contract.js';
import { readContractSchemas, readContractSummaries } from './contract-reader.js';
import { big, num, type ReadDb, text } from './db.js';

async function usageOf(
  db: ReadDb,
  contract: ContractSummary,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<DeprecatedUsage> {
  const rows = await db.all(
    `SELECT service, kind, conversation_id, client_name, MAX(trace_id) AS trace_id, COUNT(*) AS n,
            SUM(CASE WHEN ${sideWhere('any')} THEN 1 ELSE 0 END) AS counted,
            MIN(start_ns) AS first_ns, MAX(start_ns) AS last_ns
       FROM tool_calls WHERE ${TOOL_IS} AND start_ns >= ? AND start_ns < ?
      GROUP BY service, kind, conversation_id, client_name ORDER BY n DESC LIMIT 1000`,
    [contract.tool, sinceNs, untilNs],
  );
  const callers = new Set<string>();
  const servers = new Set<string>();
  const conversations = new Set<string>();
  const clients = new Set<string>();
  const traceIds = new Set<string>();
  let calls = 0;
  let firstNs = 0n;
  let lastNs = 0n;
  for (const r of rows) {
    const service = text(r.service) || 'unknown_service';
    (num(r.kind) === KIND_CLIENT ? callers : servers).add(service);
    if (r.conversation_id) conversations.add(text(r.conversation_id));
    if (r.client_name) clients.add(text(r.client_name));
    traceIds.add(text(r.trace_id));
    calls += num(r.counted);
    const f = big(r.first_ns);
    const l = big(r.last_ns);
    if (firstNs === 0n || f < firstNs) firstNs = f;
    if (l > lastNs) lastNs = l;
  }
  return {
    contract,
    calls,
    firstNs,
    lastNs,
    // A server-only deployment has no caller spans: the serving services are the best answer there is.
    callers: [...(callers.size ? callers : servers)],
    services: [...servers],
    conversations: [...conversations],
    clients: [...clients],
    traceIds: [...traceIds],
  };
}

export async function readContractFlags(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool: string | undefined,
  budget: number,
  driftFlags: Flag[],
  schemas: SchemaRow[],
): Promise<Flag[]> {
  const summaries = await readContractSummaries(db, tool);
  const seen = new Set(schemas.map((s) => s.tool));
  // Weight matters for the tools live in the window: reported in it, or called in it.
  const live = summaries.filter((c) => c.lastNs >= sinceNs || seen.has(c.tool));
  const usages: DeprecatedUsage[] = [];
  for (const c of summaries.filter((s) => s.deprecated))
    usages.push(await usageOf(db, c, sinceNs, untilNs));
  const changed = driftFlags.some((f) => f.kind !== 'heavy_schema')
    ? withContractChanges(driftFlags, schemas, await readContractSchemas(db, tool))
    : driftFlags;
  return [
    ...changed,
    ...heavySchemaFlags(live, budget),
    ...deprecatedFlags(usages, Number(untilNs / 1_000_000n)),
  ];
}
