// What each server's tools/list costs a client that connects to it (seed 003): the sum over the newest contract
// of each tool it serves (its own newest: a canary and a stable may serve different ones). One definition for /api/tools and `report`.
import type { ContractSummary } from '../storage/contract.js';

export type ServerWeight = {
  service: string;
  tools: number;
  schemaBytes: number;
  schemaTokens: number;
};

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
