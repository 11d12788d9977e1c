// The flags the contract catalog adds (docs/contracts.md), computed at read time like drift: `heavy_schema` for a
// tools/list entry above the token budget, `deprecated_tool_in_use` for a deprecated tool that still gets calls,
// and the changed paths (contracts/schema-diff.ts) added to the schema flags' evidence.
//
// The budget's default, 1000 tokens per tool: the demo's tools weigh 66–279 tokens each (a realistic
// order-lookup entry with descriptions 199), but for its order_search, a finder with a dozen described filters
// (about 1,380: the demo's heavy_schema); at 1000, forty tools already spend 40k tokens (a fifth of a 200k
// window) before the conversation starts (every field of a tool has to pay for its place).

import { type DiffableContract, describeChanges, diffContracts } from '../contracts/schema-diff.js';
import type { SchemaRow } from './drift.js';
import type { LinkedCall } from './drift-calls.js';
import type { Flag } from './flag.js';

/** What the contract flags read of a tool's newest reported contract. */
export type ContractWeight = {
  tool: string;
  version: string;
  schemaHash: string;
  services: string[];
  schemaBytes: number;
  schemaTokens: number;
  deprecated: { replacedBy: string | null; sunset: string | null } | null;
  /** When it was last reported. */
  lastNs: bigint;
};

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();
const MS_PER_DAY = 86_400_000;

export function heavySchemaFlags(summaries: ContractWeight[], budget: number): Flag[] {
  return summaries
    .filter((c) => c.schemaTokens > budget)
    .map((c) => ({
      kind: 'heavy_schema' as const,
      severity: 'warning' as const,
      tool: c.tool,
      version: c.version,
      count: c.schemaTokens,
      firstSeen: iso(c.lastNs),
      lastSeen: iso(c.lastNs),
      summary: `${c.tool}'s tools/list entry takes about ${c.schemaTokens} tokens (${c.schemaBytes} bytes), over the budget of ${budget}: every conversation pays for it before the first call.`,
      evidence: {
        schemaHashes: [c.schemaHash],
        schemaTokens: c.schemaTokens,
        schemaBytes: c.schemaBytes,
        budget,
        ...(c.services.length ? { services: c.services } : {}),
      },
    }));
}

/** Who called a deprecated tool in the window. */
export type DeprecatedUsage = {
  contract: ContractWeight;
  calls: number;
  /** Its first and newest call in the window, which date the flag and which it links first. */
  first: LinkedCall;
  newest: LinkedCall;
  /** Services of the callers' (client) spans, else of the serving spans. */
  callers: string[];
  services: string[];
  conversations: string[];
  /** MCP client names (clientInfo) the calls carried. */
  clients: string[];
  traceIds: string[];
};

export function deprecatedFlags(usages: DeprecatedUsage[], nowMs: number): Flag[] {
  return usages
    .filter((u) => u.calls > 0 && u.contract.deprecated)
    .map((u) => {
      const d = u.contract.deprecated ?? { replacedBy: null, sunset: null };
      const sunsetMs = d.sunset ? Date.parse(d.sunset) : Number.NaN;
      const daysLeft = Number.isFinite(sunsetMs)
        ? Math.ceil((sunsetMs - nowMs) / MS_PER_DAY)
        : undefined;
      const when =
        daysLeft === undefined
          ? ''
          : daysLeft >= 0
            ? `; ${daysLeft} days before its sunset on ${d.sunset}`
            : `; its sunset (${d.sunset}) passed ${-daysLeft} days ago`;
      const names = u.clients.length ? u.clients : u.callers;
      const who = names.length ? ` by ${names.slice(0, 3).join(', ')}` : '';
      return {
        kind: 'deprecated_tool_in_use' as const,
        severity:
          daysLeft !== undefined && daysLeft < 0 ? ('error' as const) : ('warning' as const),
        tool: u.contract.tool,
        version: u.contract.version,
        count: u.calls,
        firstSeen: iso(u.first.startNs),
        lastSeen: iso(u.newest.startNs),
        summary: `${u.contract.tool} is deprecated${d.replacedBy ? ` (use ${d.replacedBy})` : ''} and was still called ${u.calls} time${u.calls === 1 ? '' : 's'}${who}${when}.`,
        evidence: {
          traceIds: [...new Set([u.first.traceId, u.newest.traceId, ...u.traceIds])].slice(0, 5),
          callers: u.callers,
          services: u.services,
          conversations: u.conversations.slice(0, 10),
          ...(u.clients.length ? { clients: u.clients.slice(0, 10) } : {}),
          ...(d.replacedBy ? { replacedBy: d.replacedBy } : {}),
          ...(d.sunset ? { sunset: d.sunset } : {}),
          ...(daysLeft !== undefined ? { daysLeft } : {}),
        },
      };
    });
}

/**
 * Adds what changed to the schema flags: between the first and last contract a silent change or a skew names,
 * and between a tool's two newest contracts for input and output drift (the input or output side only).
 */
export function withContractChanges(
  flags: Flag[],
  schemas: SchemaRow[],
  contracts: Map<string, DiffableContract>,
): Flag[] {
  const diff = (tool: string, from: string | undefined, to: string | undefined) => {
    const a = from === undefined ? undefined : contracts.get(`${tool}\u0000${from}`);
    const b = to === undefined ? undefined : contracts.get(`${tool}\u0000${to}`);
    return a && b && from !== to ? diffContracts(a, b) : [];
  };
  return flags.map((f) => {
    let changes: ReturnType<typeof diffContracts> = [];
    if (f.kind === 'silent_schema_change' || f.kind === 'version_skew') {
      // Between the first and last of its contracts whose schemas were reported (a hash known only from calls
      // has nothing to compare).
      const hashes = (f.evidence.schemaHashes ?? []).filter((h) =>
        contracts.has(`${f.tool}\u0000${h}`),
      );
      changes = diff(f.tool, hashes[0], hashes.at(-1));
    } else if (f.kind === 'input_drift' || f.kind === 'output_drift') {
      const newest = schemas
        .filter((s) => s.tool === f.tool)
        .sort((a, b) => (a.firstNs < b.firstNs ? -1 : 1))
        .map((s) => s.hash)
        .filter((h, i, all) => all.indexOf(h) === i && contracts.has(`${f.tool}\u0000${h}`));
      const side = f.kind === 'input_drift' ? 'input' : 'output';
      changes = diff(f.tool, newest.at(-2), newest.at(-1)).filter(
        (c) => c.path === side || c.path.startsWith(`${side}.`) || c.path.startsWith(`${side}[`),
      );
    }
    if (changes.length === 0) return f;
    const described = describeChanges(changes);
    // Drift compares the two newest contracts, which may or may not be what broke the calls: said as a fact.
    const lead =
      f.kind === 'input_drift' || f.kind === 'output_drift'
        ? 'Its two newest contracts differ at'
        : 'The contracts differ at';
    return {
      ...f,
      summary: `${f.summary} ${lead}: ${described.slice(0, 3).join('; ')}${changes.length > 3 ? ` (+${changes.length - 3} more)` : ''}.`,
      evidence: { ...f.evidence, changes: described },
    };
  });
}
