// Read queries of the JSON API: tool statistics (see tool-stats.ts), calls, traces and conversations.
import type Database from 'better-sqlite3';
import type { Call, SpanOut, ToolStats } from '../api/schemas.js';
import { callBucket } from './call-bucket.js';
import { decodeSpans } from './span-codec.js';
import { aggregateTools, statsOf } from './tool-stats.js';

export type CallFilter = {
  tool?: string | undefined;
  code?: string | undefined;
  version?: string | undefined;
  traceId?: string | undefined;
  conversationId?: string | undefined;
  callId?: string | undefined;
  /** true: failing calls only; false: successful calls only. */
  errors?: boolean | undefined;
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

export const NS_PER_MINUTE = 60_000_000_000n;

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
    return [...aggregateTools(this.#db, sinceNs, untilNs, tool).entries()]
      .map(([name, a]) => statsOf(name, a))
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
    if (f.callId !== undefined)
      add(
        'call_bucket = ? AND call_id = ? AND call_id IS NOT NULL',
        callBucket(f.callId),
        f.callId,
      );
    if (f.errors !== undefined) add(f.errors ? 'is_error = 1' : 'is_error = 0');
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
