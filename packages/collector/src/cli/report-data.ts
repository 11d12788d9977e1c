// Where `toolscope report` gets its numbers: a SQLite file directly, or a running collector's JSON API.
import { existsSync } from 'node:fs';
import { type ToolStats, toolsResponseSchema } from '../api/schemas.js';
import {
  type ContractWeight,
  contractWeights,
  type ServerWeight,
  serverWeights,
} from '../contracts/weights.js';
import { type Flag, flagsResponseSchema } from '../detectors/flag.js';
import type { Storage } from '../storage/contract.js';
import { isPostgresUrl, openStorage, redactDbUrl } from '../storage/open.js';

export type ReportData = {
  tools: ToolStats[];
  flags: Flag[];
  servers: ServerWeight[];
  contracts: ContractWeight[];
};

/** Weights of the catalog as the report shows them (the /api/tools fields). */
async function weightsOf(storage: Storage) {
  const summaries = await storage.contractSummaries();
  return { servers: serverWeights(summaries), contracts: contractWeights(summaries) };
}
export type Source =
  | { db: string }
  | { url: string; token: string | undefined }
  | { storage: Storage };

export type Loaded = { ok: true; data: ReportData } | { ok: false; message: string };

export async function loadReport(source: Source, sinceMs: number): Promise<Loaded> {
  const untilNs = BigInt(Date.now()) * 1_000_000n;
  const sinceNs = untilNs - BigInt(sinceMs) * 1_000_000n;
  if ('storage' in source) {
    return {
      ok: true,
      data: {
        tools: await source.storage.tools(sinceNs, untilNs),
        flags: await source.storage.flags(sinceNs, untilNs, {}),
        ...(await weightsOf(source.storage)),
      },
    };
  }
  if ('db' in source) {
    if (!isPostgresUrl(source.db) && !existsSync(source.db))
      return { ok: false, message: `no database at ${source.db}` };
    let storage: Storage;
    try {
      storage = await openStorage(source.db, { storedDrift: true });
    } catch (error) {
      return {
        ok: false,
        message: `cannot open ${redactDbUrl(source.db)}: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    try {
      return {
        ok: true,
        data: {
          tools: await storage.tools(sinceNs, untilNs),
          flags: await storage.flags(sinceNs, untilNs, {}),
          ...(await weightsOf(storage)),
        },
      };
    } finally {
      await storage.close();
    }
  }
  const base = source.url.replace(/\/+$/, '');
  const headers: Record<string, string> = source.token
    ? { authorization: `Bearer ${source.token}` }
    : {};
  const since = `${Math.max(1, Math.round(sinceMs / 1000))}s`;
  try {
    const [tools, flags] = await Promise.all(
      ['tools', 'flags'].map(async (route) => {
        const res = await fetch(`${base}/api/${route}?since=${since}`, {
          headers,
          signal: AbortSignal.timeout(30_000),
        });
        if (!res.ok) throw new Error(`GET /api/${route} answered ${res.status}`);
        return res.json() as Promise<unknown>;
      }),
    );
    const t = toolsResponseSchema.safeParse(tools);
    const f = flagsResponseSchema.safeParse(flags);
    if (!t.success || !f.success)
      return { ok: false, message: `${base} did not answer with the toolscope API shapes` };
    return {
      ok: true,
      data: {
        tools: t.data.tools,
        flags: f.data.flags,
        servers: t.data.servers,
        contracts: t.data.contracts,
      },
    };
  } catch (error) {
    return {
      ok: false,
      message: `cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
