// A batch's contract reports as the rows both writers upsert: one per (tool, hash) and one per (tool, hash,
// service), in key order. One row per key because PostgreSQL refuses an upsert that touches a row twice, and key
// order so that concurrent collectors lock rows in the same order.
import type { ContractValues } from './contract-span.js';

export type ContractRow = ContractValues & { firstNs: bigint; lastNs: bigint };
export type ContractServiceRow = {
  tool: string;
  hash: string;
  service: string;
  firstNs: bigint;
  lastNs: bigint;
};

export function contractRows(reports: ContractValues[]): {
  contracts: ContractRow[];
  services: ContractServiceRow[];
} {
  const contracts = new Map<string, ContractRow>();
  const services = new Map<string, ContractServiceRow>();
  for (const r of reports) {
    const key = `${r.tool}\u0000${r.hash}`;
    const known = contracts.get(key);
    if (!known) contracts.set(key, { ...r, firstNs: r.seenNs, lastNs: r.seenNs });
    else {
      let first = known.firstNs;
      if (r.seenNs < first) first = r.seenNs;
      // The newest report's fields win, as in the upsert (sql/contracts-migration.ts).
      if (r.seenNs >= known.lastNs) contracts.set(key, { ...r, firstNs: first, lastNs: r.seenNs });
      else known.firstNs = first;
    }
    const serviceKey = `${key}\u0000${r.service}`;
    const s = services.get(serviceKey);
    if (!s)
      services.set(serviceKey, {
        tool: r.tool,
        hash: r.hash,
        service: r.service,
        firstNs: r.seenNs,
        lastNs: r.seenNs,
      });
    else {
      if (r.seenNs < s.firstNs) s.firstNs = r.seenNs;
      if (r.seenNs > s.lastNs) s.lastNs = r.seenNs;
    }
  }
  const sorted = <T>(m: Map<string, T>) =>
    [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  return { contracts: sorted(contracts), services: sorted(services) };
}
