// What each server's tools/list costs a client that connects to it: the sum over the newest contract
// of each tool it serves (its own newest: a canary and a stable may serve different ones), mapped from the
// reader's contract summaries to the API's shapes. One definition for /api/tools and `report`.
import type { ContractSummary } from '../storage/contract.js';
import type { ContractWeight, ServerWeight } from './schemas.js';

export type { ContractWeight, ServerWeight } from './schemas.js';

/** The newest contract of each tool as /api/tools lists it, heaviest first. */
export function contractWeights(summaries: ContractSummary[]): ContractWeight[] {
  return summaries
    .map((c) => ({
      name: c.tool,
      version: c.version,
      schemaHash: c.schemaHash,
      schemaBytes: c.schemaBytes,
      schemaTokens: c.schemaTokens,
      deprecated: c.deprecated,
    }))
    .sort((a, b) => b.schemaTokens - a.schemaTokens || (a.name < b.name ? -1 : 1));
}

export function serverWeights(summaries: ContractSummary[]): ServerWeight[] {
  const out = new Map<string, ServerWeight>();
  for (const c of summaries)
    for (const s of c.served) {
      const w = out.get(s.service) ?? {
        service: s.service,
        tools: 0,
        schemaBytes: 0,
        schemaTokens: 0,
      };
      w.tools++;
      w.schemaBytes += s.schemaBytes;
      w.schemaTokens += s.schemaTokens;
      out.set(s.service, w);
    }
  return [...out.values()].sort((a, b) => b.schemaTokens - a.schemaTokens);
}
