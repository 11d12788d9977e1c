// The tools of /api/tools and the report, assembled from the reader's neutral answers: each tool's aggregate over
// the window (counts and histograms, storage/read-records.ts) with its percentiles, the dialects its calls came
// from, its most frequent exceptions and its newest contract's weight and deprecation.
import { type Histogram, quantile } from '../aggregation/histogram.js';
import { resultSizesOf, type VersionSizes } from '../aggregation/result-sizes.js';
import type { CallSide } from '../calls/sides.js';
import type {
  ClientFilter,
  ContractSummary,
  ExceptionCount,
  ToolAggregate,
  ToolSources,
} from '../storage/contract.js';
import type { ContractReader, ToolReader } from '../storage/span-reader.js';
import type { ToolStats } from './schemas.js';

/** What one tool's statistics are made of. */
export type ToolParts = {
  aggregate: ToolAggregate;
  sources: string[];
  contract: ContractSummary | undefined;
  exceptions: { type: string; count: number }[];
};

/** A tool's statistics from its parts (pure). */
export function statsOf({ aggregate: a, sources, contract, exceptions }: ToolParts): ToolStats {
  return {
    name: a.name,
    exceptions,
    schemaBytes: contract?.schemaBytes ?? null,
    schemaTokens: contract?.schemaTokens ?? null,
    deprecated: contract?.deprecated ?? null,
    sources,
    calls: a.calls,
    errors: a.errors,
    errorRate: errorRateOf(a.errors, a.calls),
    p50Ms: quantile(a.latency, 0.5),
    p95Ms: quantile(a.latency, 0.95),
    p99Ms: quantile(a.latency, 0.99),
    codes: a.codes,
    versions: a.versions,
    ...resultSizesOf(new Map<string, VersionSizes>(a.sizes.map((v) => [v.version, v]))),
  };
}

/** The share of calls that failed, to four decimals (0 without calls). */
export const errorRateOf = (errors: number, calls: number): number =>
  calls === 0 ? 0 : Math.round((errors / calls) * 10_000) / 10_000;

/** A tool with no call in the window: zero calls, empty histograms. */
export function emptyAggregate(name: string): ToolAggregate {
  return { name, calls: 0, errors: 0, codes: {}, versions: [], latency: new Map(), sizes: [] };
}

/**
 * Each called tool's parts over the window (of one tool, when named), the reader asked once per question. The
 * tool page asks for its tool's parts also when it had no call in the window (`whether`: 'always'). With
 * `client`, the counts, histograms and exceptions are of that MCP client's calls; the sources and the contract
 * stay the tool's own (no client is kept with them).
 */
export async function toolParts(
  reader: ToolReader & ContractReader,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
  side: CallSide = 'any',
  whether: 'called' | 'always' = 'called',
  client?: ClientFilter,
): Promise<Map<string, ToolParts>> {
  // Independent questions, asked together: PostgreSQL answers them on separate connections.
  const [aggregates, sources, exceptions, contracts] = await Promise.all([
    reader.toolAggregates(sinceNs, untilNs, tool, side, client),
    reader.toolSources(sinceNs, untilNs, side, tool),
    reader.exceptionTypes(sinceNs, untilNs, tool, side, client),
    reader.contractSummaries(tool),
  ]);
  const sourcesOf = byTool(sources, (s: ToolSources) => s.tool);
  const thrownOf = byTool(exceptions, (e: ExceptionCount) => e.tool);
  const contractOf = byTool(contracts, (c: ContractSummary) => c.tool);
  const out = new Map<string, ToolParts>();
  const all =
    tool !== undefined && whether === 'always' && !aggregates.some((a) => a.name === tool)
      ? [...aggregates, emptyAggregate(tool)]
      : aggregates;
  for (const aggregate of all)
    out.set(aggregate.name, {
      aggregate,
      sources: sourcesOf.get(aggregate.name)?.[0]?.sources ?? [],
      contract: contractOf.get(aggregate.name)?.[0],
      exceptions: (thrownOf.get(aggregate.name) ?? []).map(({ type, count }) => ({ type, count })),
    });
  return out;
}

/** The statistics of every tool called in the window (or of one; by one client's calls), most called first. */
export async function toolStats(
  reader: ToolReader & ContractReader,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
  side: CallSide = 'any',
  client?: ClientFilter,
): Promise<ToolStats[]> {
  return [...(await toolParts(reader, sinceNs, untilNs, tool, side, 'called', client)).values()]
    .map(statsOf)
    .sort((x, y) => y.calls - x.calls || (x.name < y.name ? -1 : 1));
}

/** A histogram's non-empty buckets in bucket order. */
export function bucketsOf(h: Histogram): { bucket: number; count: number }[] {
  return [...h.entries()].sort(([x], [y]) => x - y).map(([bucket, count]) => ({ bucket, count }));
}

function byTool<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(key(item));
    if (list) list.push(item);
    else out.set(key(item), [item]);
  }
  return out;
}
