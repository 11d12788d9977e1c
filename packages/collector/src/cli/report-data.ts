// Where `toolscope report` gets its numbers: a SQLite or PostgreSQL store directly, or a running collector's
// JSON API; and, for a comparison with a baseline, the contract catalog's schemas and diffs.
import { existsSync } from 'node:fs';
import { contractsOut } from '../api/records-out.js';
import {
  contractDiffResponseSchema,
  contractsResponseSchema,
  type ToolContractOut,
  type ToolStats,
  toolsResponseSchema,
} from '../api/schemas.js';
import { toolStats } from '../api/tool-stats.js';
import {
  type ContractWeight,
  contractWeights,
  type ServerWeight,
  serverWeights,
} from '../api/tool-weights.js';
import { diffContracts, type SchemaChange } from '../contracts/schema-diff.js';
import { flagsOf } from '../detection/read-flags.js';
import { type Flag, flagsResponseSchema } from '../detectors/flag.js';
import { openStorage } from '../pipeline.js';
import type { ClientFilter, Storage } from '../storage/contract.js';
import { isPostgresUrl, redactDbUrl } from '../storage/open.js';
import type { ContractSchemas } from './baseline.js';
import { apiRecovery, type ReportRecovery, storeRecovery } from './report-recovery.js';

/** One run's numbers as the report shows them. */
export type ReportData = {
  tools: ToolStats[];
  flags: Flag[];
  servers: ServerWeight[];
  contracts: ContractWeight[];
  /** The schemas of each tool's newest contract, when they were reported. */
  contractSchemas: ContractSchemas[];
  /** What agents did after failed calls, per tool (null from a collector that predates it). */
  recovery: ReportRecovery | null;
};

/** Where a report reads from: a store by path or URL, a collector's API, or an open store (`ci`). */
export type Source =
  | { db: string }
  | { url: string; token: string | undefined }
  | { storage: Storage };

/** What a report reads; errors are thrown and turned into the exit code 2 by the caller. */
export type ReportReader = {
  /** `client`: the tools' numbers over that MCP client's calls only (flags, contracts and recovery stay all). */
  load(sinceMs: number, client?: ClientFilter): Promise<ReportData>;
  /** What changed between two contracts of a tool, or null when the catalog lacks either's schemas. */
  contractDiff(tool: string, from: string, to: string): Promise<SchemaChange[] | null>;
  close(): Promise<void>;
};

/** An open reader, or why the source cannot be read. */
export type Opened = { ok: true; reader: ReportReader } | { ok: false; message: string };

const window = (sinceMs: number) => {
  const untilNs = BigInt(Date.now()) * 1_000_000n;
  return { sinceNs: untilNs - BigInt(sinceMs) * 1_000_000n, untilNs };
};

/** The schemas of `weights`' contracts among the contracts of their tools. */
async function schemasOf(
  weights: ContractWeight[],
  contractsOf: (name: string) => Promise<ToolContractOut[] | null>,
): Promise<ContractSchemas[]> {
  const out: ContractSchemas[] = [];
  for (const w of weights) {
    const c = (await contractsOf(w.name))?.find((x) => x.schemaHash === w.schemaHash);
    if (!c?.reported) continue;
    out.push({
      name: w.name,
      version: c.version,
      schemaHash: c.schemaHash,
      description: c.description,
      inputSchema: c.inputSchema,
      outputSchema: c.outputSchema,
    });
  }
  return out;
}

function storageReader(storage: Storage, close: () => Promise<void>): ReportReader {
  return {
    async load(sinceMs, client) {
      const { sinceNs, untilNs } = window(sinceMs);
      const summaries = await storage.contractSummaries();
      const contracts = contractWeights(summaries);
      return {
        tools: await toolStats(storage, sinceNs, untilNs, undefined, 'any', client),
        flags: await flagsOf(storage, sinceNs, untilNs, {}),
        servers: serverWeights(summaries),
        contracts,
        contractSchemas: await schemasOf(contracts, (name) => contractsOut(storage, name)),
        recovery: await storeRecovery(storage, sinceNs, untilNs),
      };
    },
    async contractDiff(tool, from, to) {
      const all = (await storage.contracts(tool)) ?? [];
      const a = all.find((c) => c.schemaHash === from);
      const b = all.find((c) => c.schemaHash === to);
      return a?.reported && b?.reported ? diffContracts(a, b) : null;
    },
    close,
  };
}

function apiReader(url: string, token: string | undefined): ReportReader {
  const base = url.replace(/\/+$/, '');
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  /** The body of a GET, or null for a 404 (a tool or contract the collector does not know). */
  const get = async (path: string): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      throw new Error(
        `cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`GET ${path.split('?')[0]} answered ${res.status}`);
    return res.json() as Promise<unknown>;
  };
  const shapeError = () => new Error(`${base} did not answer with the toolscope API shapes`);
  const contractsOf = async (name: string) => {
    const body = await get(`/api/tools/${encodeURIComponent(name)}/contracts`);
    if (body === null) return null;
    const parsed = contractsResponseSchema.safeParse(body);
    if (!parsed.success) throw shapeError();
    return parsed.data.contracts;
  };
  return {
    async load(sinceMs, client) {
      const since = `${Math.max(1, Math.round(sinceMs / 1000))}s`;
      const byClient = new URLSearchParams({
        since,
        ...(client ? { client: client.name } : {}),
        ...(client?.version !== undefined ? { clientVersion: client.version } : {}),
      });
      const [tools, flags] = await Promise.all([
        get(`/api/tools?${byClient}`),
        get(`/api/flags?since=${since}`),
      ]);
      const t = toolsResponseSchema.safeParse(tools);
      const f = flagsResponseSchema.safeParse(flags);
      if (!t.success || !f.success) throw shapeError();
      return {
        tools: t.data.tools,
        flags: f.data.flags,
        servers: t.data.servers,
        contracts: t.data.contracts,
        contractSchemas: await schemasOf(t.data.contracts, contractsOf),
        recovery: await apiRecovery(get, since),
      };
    },
    async contractDiff(tool, from, to) {
      const q = new URLSearchParams({ from, to });
      const body = await get(`/api/tools/${encodeURIComponent(tool)}/contracts/diff?${q}`);
      if (body === null) return null;
      const parsed = contractDiffResponseSchema.safeParse(body);
      if (!parsed.success) throw shapeError();
      return parsed.data.changes;
    },
    close: async () => {},
  };
}

/** Opens what `source` names; a missing file or a store that will not open is an error value. */
export async function openReader(source: Source): Promise<Opened> {
  if ('storage' in source)
    return { ok: true, reader: storageReader(source.storage, async () => {}) };
  if ('url' in source) return { ok: true, reader: apiReader(source.url, source.token) };
  if (!isPostgresUrl(source.db) && !existsSync(source.db))
    return { ok: false, message: `no database at ${source.db}` };
  try {
    const storage = await openStorage(source.db, { recallReadSettings: true });
    return { ok: true, reader: storageReader(storage, () => storage.close()) };
  } catch (error) {
    return {
      ok: false,
      message: `cannot open ${redactDbUrl(source.db)}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
