// Read queries of the JSON API. Tool statistics come from hour and minute rollups plus raw rows only for the
// partial minutes at the edges of the range, so /api/tools costs the same for 1k or 1M calls.
import type Database from 'better-sqlite3';
import type { Call, SpanOut, ToolStats } from '../api/schemas.js';
import { addTo, deserialize, type Histogram, mergeInto, quantile } from './histogram.js';
import { decodeSpans } from './span-codec.js';

const NS_MIN = 60_000_000_000n;
const NS_HOUR = 60n * NS_MIN;

type Agg = {
  calls: number;
  errors: number;
  codes: Map<string, number>;
  versions: Set<string>;
  hist: Histogram;
};

const ceilTo = (ns: bigint, unit: bigint) => ((ns + unit - 1n) / unit) * unit;
const floorTo = (ns: bigint, unit: bigint) => (ns / unit) * unit;

export type CallFilter = {
  tool?: string | undefined;
  code?: string | undefined;
  version?: string | undefined;
  traceId?: string | undefined;
  conversationId?: string | undefined;
  sinceNs: bigint;
  untilNs: bigint;
  limit: number;
  cursor?: { startNs: bigint; id: number } | undefined;
};

type CallRow = {
  id: bigint;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  tool: string;
  version: string | null;
  schema_hash: string | null;
  attempt: bigint;
  code: string | null;
  error_type: string | null;
  reason: string | null;
  retryable: bigint | null;
  partial_effect: bigint;
  effect: string | null;
  duration_ms: number;
  start_ns: bigint;
  issues: string | null;
  input_hash: string | null;
  input_shape: string | null;
  conversation_id: string | null;
  call_id: string | null;
  kind: bigint;
  service: string | null;
};

export function isoOf(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export class SqliteReader {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  tools(sinceNs: bigint, untilNs: bigint, tool?: string): ToolStats[] {
    const byTool = new Map<string, Agg>();
    const agg = (name: string): Agg => {
      let a = byTool.get(name);
      if (!a) {
        a = { calls: 0, errors: 0, codes: new Map(), versions: new Set(), hist: new Map() };
        byTool.set(name, a);
      }
      return a;
    };
    const addRollup = (
      table: 'tool_hours' | 'tool_minutes',
      col: 'hour' | 'minute',
      unit: bigint,
      from: bigint,
      to: bigint,
    ) => {
      if (from >= to) return;
      const rows = this.#db
        .prepare(
          `SELECT tool, version, code, calls, errors, hist FROM ${table} WHERE ${col} >= ? AND ${col} < ?${tool ? ' AND tool = ?' : ''}`,
        )
        .all(...(tool ? [from / unit, to / unit, tool] : [from / unit, to / unit])) as {
        tool: string;
        version: string;
        code: string;
        calls: number;
        errors: number;
        hist: string;
      }[];
      for (const r of rows) {
        const a = agg(r.tool);
        a.calls += r.calls;
        a.errors += r.errors;
        if (r.code) a.codes.set(r.code, (a.codes.get(r.code) ?? 0) + r.calls);
        if (r.version) a.versions.add(r.version);
        mergeInto(a.hist, deserialize(r.hist));
      }
    };
    const addRaw = (from: bigint, to: bigint) => {
      if (from >= to) return;
      const rows = this.#db
        .prepare(
          `SELECT tool, version, COALESCE(code, error_type, CASE WHEN is_error = 1 THEN 'ERROR' ELSE '' END) AS code_key,
                  is_error, duration_ms FROM tool_calls WHERE start_ns >= ? AND start_ns < ? AND kind != 3${tool ? ' AND tool = ?' : ''}`,
        )
        .all(...(tool ? [from, to, tool] : [from, to])) as {
        tool: string;
        version: string | null;
        code_key: string;
        is_error: number;
        duration_ms: number;
      }[];
      for (const r of rows) {
        const a = agg(r.tool);
        a.calls++;
        if (r.is_error) a.errors++;
        if (r.code_key) a.codes.set(r.code_key, (a.codes.get(r.code_key) ?? 0) + 1);
        if (r.version) a.versions.add(r.version);
        addTo(a.hist, r.duration_ms);
      }
    };
    const minStart = ceilTo(sinceNs, NS_MIN);
    const minEnd = floorTo(untilNs, NS_MIN);
    if (minStart >= minEnd) {
      addRaw(sinceNs, untilNs);
    } else {
      const hourStart = ceilTo(minStart, NS_HOUR);
      const hourEnd = floorTo(minEnd, NS_HOUR);
      if (hourStart < hourEnd) {
        addRollup('tool_hours', 'hour', NS_HOUR, hourStart, hourEnd);
        addRollup('tool_minutes', 'minute', NS_MIN, minStart, hourStart);
        addRollup('tool_minutes', 'minute', NS_MIN, hourEnd, minEnd);
      } else {
        addRollup('tool_minutes', 'minute', NS_MIN, minStart, minEnd);
      }
      addRaw(sinceNs, minStart);
      addRaw(minEnd, untilNs);
    }
    return [...byTool.entries()]
      .map(([name, a]) => ({
        name,
        calls: a.calls,
        errors: a.errors,
        errorRate: a.calls === 0 ? 0 : Math.round((a.errors / a.calls) * 10_000) / 10_000,
        p50Ms: quantile(a.hist, 0.5),
        p95Ms: quantile(a.hist, 0.95),
        p99Ms: quantile(a.hist, 0.99),
        codes: Object.fromEntries([...a.codes.entries()].sort(([x], [y]) => (x < y ? -1 : 1))),
        versions: [...a.versions].sort(),
      }))
      .sort((x, y) => y.calls - x.calls || (x.name < y.name ? -1 : 1));
  }

  calls(f: CallFilter): { calls: Call[]; nextCursor: string | null } {
    const where: string[] = ['start_ns >= ?', 'start_ns < ?', 'kind != 3'];
    const args: unknown[] = [f.sinceNs, f.untilNs];
    const add = (clause: string, ...values: unknown[]) => {
      where.push(clause);
      args.push(...values);
    };
    if (f.tool !== undefined) add('tool = ?', f.tool);
    if (f.version !== undefined) add('version = ?', f.version);
    if (f.code !== undefined) {
      if (f.code === 'OK') add('is_error = 0');
      else add('COALESCE(code, error_type) = ?', f.code);
    }
    if (f.traceId !== undefined) {
      where.push('trace_seq = (SELECT seq FROM traces WHERE trace_id = ?)');
      args.push(f.traceId);
    }
    if (f.conversationId !== undefined) {
      where.push(
        'trace_seq IN (SELECT trace_seq FROM conversation_traces WHERE conversation_id = ?) AND conversation_id = ?',
      );
      args.push(f.conversationId, f.conversationId);
    }
    if (f.cursor) {
      where.push('(start_ns < ? OR (start_ns = ? AND id < ?))');
      args.push(f.cursor.startNs, f.cursor.startNs, f.cursor.id);
    }
    const rows = this.#db
      .prepare(
        `SELECT * FROM tool_calls WHERE ${where.join(' AND ')} ORDER BY start_ns DESC, id DESC LIMIT ?`,
      )
      .safeIntegers(true)
      .all(...args, f.limit + 1) as CallRow[];
    const page = rows.slice(0, f.limit);
    const last = page.at(-1);
    const nextCursor =
      rows.length > f.limit && last
        ? Buffer.from(`${last.start_ns}:${last.id}`).toString('base64url')
        : null;
    return { calls: page.map(callOf), nextCursor };
  }

  /** Spans of one trace in start order, or null when the trace is unknown. */
  trace(traceId: string): SpanOut[] | null {
    const seq = this.#db.prepare('SELECT seq FROM traces WHERE trace_id = ?').get(traceId) as
      | { seq: number }
      | undefined;
    if (!seq) return null;
    return this.#spansOf([seq.seq]);
  }

  /** Traces and spans of a conversation, or null when it is unknown. */
  conversation(id: string): { traceIds: string[]; spans: SpanOut[] } | null {
    const seqs = this.#db
      .prepare(
        'SELECT ct.trace_seq AS seq, t.trace_id FROM conversation_traces ct JOIN traces t ON t.seq = ct.trace_seq WHERE ct.conversation_id = ? ORDER BY t.first_ns LIMIT 500',
      )
      .all(id) as { seq: number; trace_id: string }[];
    if (seqs.length === 0) return null;
    return { traceIds: seqs.map((s) => s.trace_id), spans: this.#spansOf(seqs.map((s) => s.seq)) };
  }

  #spansOf(seqs: number[]): SpanOut[] {
    const stmt = this.#db.prepare(
      `SELECT t.trace_id, b.spans, r.attributes AS resource
         FROM span_blocks b JOIN traces t ON t.seq = b.trace_seq JOIN resources r ON r.id = b.resource_id
        WHERE b.trace_seq = ? ORDER BY b.id LIMIT 10000`,
    );
    const spans: SpanOut[] = [];
    for (const seq of seqs) {
      for (const row of stmt.all(seq) as { trace_id: string; spans: string; resource: string }[]) {
        spans.push(...decodeSpans(row.trace_id, row.spans, parseJson(row.resource, {})));
      }
    }
    // Equal start times are common (clock granularity): then a parent comes before its children.
    const depth = depthsOf(spans);
    const start = (s: SpanOut) => BigInt(s.startTimeUnixNano);
    spans.sort((a, b) => {
      const x = start(a);
      const y = start(b);
      return x < y ? -1 : x > y ? 1 : (depth.get(a.spanId) ?? 0) - (depth.get(b.spanId) ?? 0);
    });
    return spans;
  }
}

/** Depth of each span in its trace's tree (roots 0); cycles and missing parents count as roots. */
function depthsOf(rows: SpanOut[]): Map<string, number> {
  const parent = new Map(rows.map((r) => [r.spanId, r.parentSpanId]));
  const depth = new Map<string, number>();
  for (const r of rows) {
    let d = 0;
    let cur = r.parentSpanId;
    const seen = new Set<string>([r.spanId]);
    while (cur && parent.has(cur) && !seen.has(cur) && d < 1000) {
      seen.add(cur);
      d++;
      cur = parent.get(cur) ?? null;
    }
    depth.set(r.spanId, d);
  }
  return depth;
}

function callOf(r: CallRow): Call {
  return {
    traceId: r.trace_id,
    spanId: r.span_id,
    tool: r.tool,
    version: r.version,
    schemaHash: r.schema_hash,
    attempt: Number(r.attempt),
    code: r.code ?? r.error_type,
    retryable: r.retryable === null ? null : r.retryable === 1n,
    partialEffect: r.partial_effect === 1n,
    durationMs: Math.round(r.duration_ms * 1000) / 1000,
    startTime: isoOf(r.start_ns),
    issues: parseJson(r.issues, []),
    inputHash: r.input_hash,
    inputShape: r.input_shape,
    errorType: r.error_type,
    reason: r.reason,
    effect: r.effect,
    conversationId: r.conversation_id,
    callId: r.call_id,
    service: r.service,
    kind: Number(r.kind),
    parentSpanId: r.parent_span_id,
  };
}
