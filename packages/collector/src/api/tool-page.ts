// The tool page (GET /api/tools/:name) assembled from the reader's neutral answers: the tool's statistics and
// distributions over the window, its calls by MCP client, its schema versions over all time (a silent change shows only next to what
// came before it), its most frequent failing paths and its input shapes.

import { logBucketBounds } from '../aggregation/log-buckets.js';
import { emptySizes, mergeSizes } from '../aggregation/result-sizes.js';
import type { ClientCalls, FailingPath, InputShape, SchemaVersion } from '../storage/contract.js';
import type { ContractReader, ToolReader } from '../storage/span-reader.js';
import type { ToolDetailResponse, ToolStats } from './schemas.js';
import { toolClientsOut } from './tool-clients.js';
import { bucketsOf, statsOf, toolParts } from './tool-stats.js';

/** A histogram's non-empty buckets in bucket order (aggregation/log-buckets.ts defines the buckets). */
type BucketCount = { bucket: number; count: number };

/** The tool page: versions and hashes, failing paths, input shapes, latency and result-size buckets. */
export type ToolDetail = ToolDetailResponse;

const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

/** What the page is made of: the tool's statistics and distributions, and the reader's per-tool tables. */
export type ToolPageParts = {
  stats: { summary: ToolStats; latency: BucketCount[]; resultBytes: BucketCount[] };
  clients: ClientCalls[];
  versions: SchemaVersion[];
  paths: FailingPath[];
  shapes: InputShape[];
};

/** The page of `name` from its parts (pure). */
export function assembleToolPage(name: string, parts: ToolPageParts): ToolDetail {
  const hashesPerVersion = new Map<string, number>();
  for (const v of parts.versions)
    hashesPerVersion.set(v.version, (hashesPerVersion.get(v.version) ?? 0) + 1);
  return {
    name,
    stats: parts.stats.summary,
    clients: toolClientsOut(parts.clients),
    versions: parts.versions.map((v) => ({
      version: v.version,
      schemaHash: v.schemaHash,
      firstSeen: iso(v.firstNs),
      lastSeen: iso(v.lastNs),
      calls: v.calls,
      lastTraceId: v.lastTraceId,
      silentChange: (hashesPerVersion.get(v.version) ?? 0) > 1,
    })),
    failingPaths: parts.paths.map((p) => ({
      code: p.code,
      path: p.path,
      count: p.count,
      lastTraceId: p.lastTraceId,
    })),
    shapes: parts.shapes.map((s) => ({
      shape: s.shape,
      firstSeen: iso(s.firstNs),
      lastSeen: iso(s.lastNs),
      calls: s.calls,
      invalid: s.invalid,
    })),
    latency: parts.stats.latency.map(latencyBucket),
    resultBytes: parts.stats.resultBytes.map(sizeBucket),
  };
}

/** A latency bucket (counted in µs) in milliseconds, to the microsecond. */
function latencyBucket({ bucket, count }: BucketCount): ToolDetail['latency'][number] {
  const { from, to } = logBucketBounds(bucket);
  const ms = (us: number) => Math.round((us / 1000) * 1000) / 1000;
  return { fromMs: ms(from), toMs: ms(to), count };
}

/** A result-size bucket in whole bytes. */
function sizeBucket({ bucket, count }: BucketCount): ToolDetail['resultBytes'][number] {
  const { from, to } = logBucketBounds(bucket);
  return { fromBytes: Math.ceil(from), toBytes: Math.ceil(to), count };
}

/** Everything the tool page shows for [sinceNs, untilNs), or null when the tool was never seen. */
export async function toolPage(
  reader: ToolReader & ContractReader,
  name: string,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<ToolDetail | null> {
  // Independent questions, asked together: PostgreSQL answers them on separate connections.
  const [parts, versions, paths, shapes, clients] = await Promise.all([
    toolParts(reader, sinceNs, untilNs, name, 'any', 'always'),
    reader.toolVersions(name),
    reader.topFailingPaths(name, sinceNs, untilNs),
    reader.inputShapes(name, sinceNs, untilNs),
    reader.toolClients(name, sinceNs, untilNs),
  ]);
  const tool = parts.get(name);
  if (!tool) throw new Error('the parts of a named tool always hold it');
  const summary = statsOf(tool);
  if (summary.calls === 0 && versions.length === 0 && !(await reader.toolKnown(name))) return null;
  // Result bytes of every version together.
  const allVersions = emptySizes();
  for (const v of tool.aggregate.sizes) mergeSizes(allVersions, v);
  const stats = {
    summary,
    latency: bucketsOf(tool.aggregate.latency),
    resultBytes: bucketsOf(allVersions.bytes),
  };
  return assembleToolPage(name, { stats, clients, versions, paths, shapes });
}
