// Tool aggregates from the rollups: hour and minute rows for the whole minutes and hours of a range, and raw
// tool_calls rows only for the partial minutes at its edges, so /api/tools costs the same for 1k or 1M calls.
// Counts and histograms only: the API makes percentiles and pages of them (api/tool-stats.ts).

import { addSerialized, addTo, type Histogram, subtractFrom } from '../../aggregation/histogram.js';
import {
  addSize,
  sizesOf,
  subtractSizes,
  type VersionSizes,
} from '../../aggregation/result-sizes.js';
import type { CallSide } from '../../calls/sides.js';
import { TOOL_IS } from '../call-row.js';
import { rollupSides, sideWhere } from '../call-side.js';
import type { ClientFilter, ToolAggregate, ToolSources } from '../read-records.js';
import { CLIENT_KEY_SEPARATOR, CLIENT_TABLE, clientWhere } from './client-sql.js';
import { CODE_KEY_SQL } from './code-sql.js';
import {
  big,
  NS_PER_HOUR as NS_HOUR,
  NS_PER_MINUTE as NS_MIN,
  num,
  numOrNull,
  type ReadDb,
  type Row,
  text,
} from './db.js';
import { ROLLUP_SIZES } from './output-migration.js';

export type ToolAgg = {
  calls: number;
  errors: number;
  codes: Map<string, number>;
  versions: Set<string>;
  hist: Histogram;
  /** Result sizes per version ('' for calls without one), and when each version's first call in the window was. */
  sizes: Map<string, VersionSizes>;
};

export function emptyToolAgg(): ToolAgg {
  return {
    calls: 0,
    errors: 0,
    codes: new Map(),
    versions: new Set(),
    hist: new Map(),
    sizes: new Map(),
  };
}

export const ceilTo = (ns: bigint, unit: bigint) => ((ns + unit - 1n) / unit) * unit;
export const floorTo = (ns: bigint, unit: bigint) => (ns / unit) * unit;

/** The rollup sides a read takes, as an SQL IN list (fixed words from call-side.ts, never user input). */
export function sideList(sides: readonly string[]): string {
  return sides.map((s) => `'${s}'`).join(', ');
}

/**
 * Aggregates per tool over [sinceNs, untilNs), optionally for one tool, counting the calls of `side`
 * (call-side.ts): for `any`, rollups of both sides less the client calls paired with a server row. Result
 * sizes only when `sizes` (their histograms are most of what a rollup row costs to read). With `client`, only
 * that MCP client's calls, from the client rollups.
 */
export function aggregateTools(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
  side: CallSide = 'any',
  sizes = true,
  client?: ClientFilter,
): Promise<Map<string, ToolAgg>> {
  return aggregate(db, sinceNs, untilNs, { tool, side, sizes, latency: true, client, by: 'tool' });
}

/** What an aggregate reads and how it groups its calls. */
export type AggregateQuery = {
  tool: string | undefined;
  side: CallSide;
  sizes: boolean;
  /** The latency histograms (a breakdown of counts leaves them unread). */
  latency: boolean;
  client: ClientFilter | undefined;
  /** Per tool, or per client: name and version joined by CLIENT_KEY_SEPARATOR, '' where none was named. */
  by: 'tool' | 'client';
};

/** aggregateTools, read as `q` says: see there. */
export async function aggregate(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  q: AggregateQuery,
): Promise<Map<string, ToolAgg>> {
  const { tool, side, sizes } = q;
  const countsOnly = !q.latency && !sizes;
  const clients = q.client !== undefined || q.by === 'client';
  const filter = clientWhere(q.client);
  const clientColumns = clients ? ', client_name, client_version' : '';
  const keyOf = (r: Row): string =>
    q.by === 'tool'
      ? text(r.tool)
      : `${text(r.client_name)}${CLIENT_KEY_SEPARATOR}${text(r.client_version)}`;
  const byTool = new Map<string, ToolAgg>();
  const paired = new Map<string, ToolAgg>();
  const agg = (into: Map<string, ToolAgg>, name: string): ToolAgg => {
    let a = into.get(name);
    if (!a) {
      a = emptyToolAgg();
      into.set(name, a);
    }
    return a;
  };
  const sides = rollupSides(side);
  const rollupSql = `side IN (${sideList([...sides.add, ...sides.subtract])})`;
  const subtracted = new Set<string>(sides.subtract);
  const addRollup = async (
    table: 'tool_hours' | 'tool_minutes',
    col: 'hour' | 'minute',
    unit: bigint,
    from: bigint,
    to: bigint,
  ) => {
    if (from >= to) return;
    const where = `FROM ${clients ? CLIENT_TABLE[table] : table}
        WHERE ${col} >= ? AND ${col} < ? AND ${rollupSql}${tool ? ' AND tool = ?' : ''}${filter.rollups}`;
    // Counts alone are summed by the database: a row per key instead of one per key and minute (a day's
    // client minutes at the edges of a range are thousands of rows).
    const rows = await db.all(
      countsOnly
        ? `SELECT tool, version, code, side, SUM(calls) AS calls, SUM(errors) AS errors${clientColumns} ${where}
            GROUP BY tool, version, code, side${clientColumns}`
        : `SELECT ${col} AS at, tool, version, code, side, calls, errors${q.latency ? ', hist' : ''}${sizes ? `, ${ROLLUP_SIZES}` : ''}${clientColumns} ${where}`,
      [from / unit, to / unit, ...(tool ? [tool] : []), ...filter.params],
    );
    for (const r of rows) {
      const a = agg(subtracted.has(text(r.side)) ? paired : byTool, keyOf(r));
      const calls = num(r.calls);
      const code = text(r.code);
      const version = text(r.version);
      a.calls += calls;
      a.errors += num(r.errors);
      if (code) a.codes.set(code, (a.codes.get(code) ?? 0) + calls);
      if (version) a.versions.add(version);
      const damaged = (what: string) => db.damaged(`${table}: ${what}`);
      if (q.latency) addSerialized(a.hist, text(r.hist), damaged);
      if (sizes) {
        const v = sizesOf(a.sizes, version, big(r.at) * unit);
        addSerialized(v.bytes, text(r.bytes_hist), damaged);
        addSerialized(v.tokens, text(r.tokens_hist), damaged);
        v.maxBytes = Math.max(v.maxBytes, num(r.max_bytes));
        v.maxTokens = Math.max(v.maxTokens, num(r.max_tokens));
      }
    }
  };
  const addRaw = async (from: bigint, to: bigint) => {
    if (from >= to) return;
    const rows = await db.all(
      `SELECT tool, version, ${CODE_KEY_SQL} AS code_key, is_error, duration_ms, start_ns, result_bytes,
              result_tokens${clientColumns} FROM tool_calls
        WHERE start_ns >= ? AND start_ns < ? AND ${sideWhere(side)}${tool ? ` AND ${TOOL_IS}` : ''}${filter.calls}`,
      [from, to, ...(tool ? [tool] : []), ...filter.params],
    );
    for (const r of rows) {
      const a = agg(byTool, keyOf(r));
      const codeKey = text(r.code_key);
      const version = text(r.version);
      a.calls++;
      if (num(r.is_error)) a.errors++;
      if (codeKey) a.codes.set(codeKey, (a.codes.get(codeKey) ?? 0) + 1);
      if (version) a.versions.add(version);
      if (q.latency) addTo(a.hist, num(r.duration_ms));
      if (sizes)
        addSize(
          sizesOf(a.sizes, version, big(r.start_ns)),
          numOrNull(r.result_bytes),
          numOrNull(r.result_tokens),
        );
    }
  };
  const minStart = ceilTo(sinceNs, NS_MIN);
  const minEnd = floorTo(untilNs, NS_MIN);
  if (minStart >= minEnd) {
    await addRaw(sinceNs, untilNs);
  } else {
    const hourStart = ceilTo(minStart, NS_HOUR);
    const hourEnd = floorTo(minEnd, NS_HOUR);
    if (hourStart < hourEnd) {
      await addRollup('tool_hours', 'hour', NS_HOUR, hourStart, hourEnd);
      await addRollup('tool_minutes', 'minute', NS_MIN, minStart, hourStart);
      await addRollup('tool_minutes', 'minute', NS_MIN, hourEnd, minEnd);
    } else {
      await addRollup('tool_minutes', 'minute', NS_MIN, minStart, minEnd);
    }
    await addRaw(sinceNs, minStart);
    await addRaw(minEnd, untilNs);
  }
  for (const [name, p] of paired) {
    const a = byTool.get(name);
    if (a) subtractAgg(a, p);
  }
  for (const [name, a] of byTool) if (a.calls <= 0) byTool.delete(name);
  return byTool;
}

/** Takes the paired client calls out of an aggregate that counted them on both sides. */
function subtractAgg(a: ToolAgg, p: ToolAgg): void {
  a.calls -= p.calls;
  a.errors -= p.errors;
  for (const [code, n] of p.codes) {
    const left = (a.codes.get(code) ?? 0) - n;
    if (left > 0) a.codes.set(code, left);
    else a.codes.delete(code);
  }
  subtractFrom(a.hist, p.hist);
  for (const [version, s] of p.sizes) {
    const into = a.sizes.get(version);
    if (into) subtractSizes(into, s);
  }
}

/** The aggregates of aggregateTools as records, each tool's sizes per version in the order first seen. */
export async function toolAggregates(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
  side: CallSide = 'any',
  client?: ClientFilter,
): Promise<ToolAggregate[]> {
  return [...(await aggregateTools(db, sinceNs, untilNs, tool, side, true, client)).entries()].map(
    ([name, a]) => ({
      name,
      calls: a.calls,
      errors: a.errors,
      codes: Object.fromEntries([...a.codes.entries()].sort(([x], [y]) => (x < y ? -1 : 1))),
      versions: [...a.versions].sort(),
      latency: a.hist,
      sizes: [...a.sizes.entries()].map(([version, v]) => ({ version, ...v })),
    }),
  );
}

/** The sources (dialects) each tool's calls of `side` came from in the window, from tool_sources. */
export async function toolSources(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  side: CallSide,
  tool?: string,
): Promise<ToolSources[]> {
  const sideSql = side === 'any' ? '' : ` AND side = '${side}'`;
  const rows = await db.all(
    `SELECT DISTINCT tool, source FROM tool_sources WHERE last_ns >= ? AND first_ns < ?${sideSql}${tool ? ' AND tool = ?' : ''}
      ORDER BY tool, source`,
    tool ? [sinceNs, untilNs, tool] : [sinceNs, untilNs],
  );
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(text(r.tool)) ?? [];
    list.push(text(r.source));
    out.set(text(r.tool), list);
  }
  return [...out].map(([name, sources]) => ({ tool: name, sources }));
}
