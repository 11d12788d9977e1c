// The database half of a write (runs on the writer thread): trace ids to row numbers, duplicates (exporter
// retries: same trace and span id) dropped, one block row per trace and resource, tool calls, and minute and
// hour rollups, all in one transaction.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { LoopThresholds } from '../detectors/retry-loops.js';
import { DetectorState, newTouch, touchCall } from './detector-state.js';
import { addTo, deserialize, type Histogram, mergeInto, serialize } from './histogram.js';
import { codeKey, KIND_CLIENT } from './tool-call.js';
import type { CallValues, WritePlan } from './write-plan.js';

const NS_PER_MINUTE = 60_000_000_000n;
const NS_PER_HOUR = 60n * NS_PER_MINUTE;
const CACHE_MAX = 50_000;

type Rollup = {
  table: 'tool_minutes' | 'tool_hours';
  bucket: bigint;
  tool: string;
  version: string;
  code: string;
  calls: number;
  errors: number;
  hist: Histogram;
};

export type WriteOutcome = { inserted: number; duplicates: number; toolCalls: number };

export class BlockWriter {
  readonly #traceSeq = new Map<string, number>();
  readonly #recentIds = new Map<number, Set<string>>();
  readonly #resourceIds = new Map<string, number>();
  /** Current rollup rows this writer has read or written: it is the only writer, so they stay exact. */
  readonly #rollupRows = new Map<string, { calls: number; errors: number; hist: Histogram }>();
  readonly #stmt;
  readonly #applyTx: (plan: WritePlan) => WriteOutcome;
  readonly #detectors: DetectorState;
  readonly #deleteTx: (cutoffNs: bigint, maxTraces: number) => number;

  constructor(db: Database.Database, thresholds: Partial<LoopThresholds> = {}) {
    this.#detectors = new DetectorState(db, thresholds);
    this.#stmt = {
      findTrace: db.prepare<[string], { seq: number }>('SELECT seq FROM traces WHERE trace_id = ?'),
      insertTrace: db.prepare('INSERT INTO traces (trace_id, first_ns) VALUES (?, ?)'),
      findResource: db.prepare<[string], { id: number }>(
        'SELECT id FROM resources WHERE digest = ?',
      ),
      insertResource: db.prepare('INSERT INTO resources (digest, attributes) VALUES (?, ?)'),
      insertBlock: db.prepare(
        'INSERT INTO span_blocks (trace_seq, resource_id, span_ids, spans) VALUES (?, ?, ?, ?)',
      ),
      blockIds: db
        .prepare<[number], string>('SELECT span_ids FROM span_blocks WHERE trace_seq = ?')
        .pluck(),
      insertCall: db.prepare(
        `INSERT INTO tool_calls (trace_seq, trace_id, span_id, parent_span_id, tool, version, schema_hash, attempt, code,
          error_type, reason, is_error, retryable, partial_effect, effect, duration_ms, start_ns, issues, input_hash,
          input_shape, idempotency_key_hash, conversation_id, call_id, kind, service, call_bucket)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertConversation: db.prepare(
        'INSERT OR IGNORE INTO conversation_traces (conversation_id, trace_seq) VALUES (?, ?)',
      ),
      findRollup: {
        tool_minutes: db.prepare<
          [bigint, string, string, string],
          { calls: number; errors: number; hist: string }
        >(
          'SELECT calls, errors, hist FROM tool_minutes WHERE minute = ? AND tool = ? AND version = ? AND code = ?',
        ),
        tool_hours: db.prepare<
          [bigint, string, string, string],
          { calls: number; errors: number; hist: string }
        >(
          'SELECT calls, errors, hist FROM tool_hours WHERE hour = ? AND tool = ? AND version = ? AND code = ?',
        ),
      },
      upsertRollup: {
        tool_minutes: db.prepare(
          `INSERT INTO tool_minutes (minute, tool, version, code, calls, errors, hist) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (minute, tool, version, code) DO UPDATE SET calls = excluded.calls, errors = excluded.errors, hist = excluded.hist`,
        ),
        tool_hours: db.prepare(
          `INSERT INTO tool_hours (hour, tool, version, code, calls, errors, hist) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (hour, tool, version, code) DO UPDATE SET calls = excluded.calls, errors = excluded.errors, hist = excluded.hist`,
        ),
      },
    };
    this.#applyTx = db.transaction((plan: WritePlan) => this.#apply(plan));
    this.#deleteTx = db.transaction((cutoffNs: bigint, maxTraces: number) => {
      const seqs = db
        .prepare('SELECT seq FROM traces WHERE first_ns < ? ORDER BY first_ns LIMIT ?')
        .pluck()
        .all(cutoffNs, maxTraces) as number[];
      if (seqs.length === 0) return 0;
      const statements = ['span_blocks', 'tool_calls', 'conversation_traces'].map((t) =>
        db.prepare(`DELETE FROM ${t} WHERE trace_seq = ?`),
      );
      const trace = db.prepare('DELETE FROM traces WHERE seq = ?');
      for (const seq of seqs) {
        for (const s of statements) s.run(seq);
        trace.run(seq);
      }
      db.prepare('DELETE FROM tool_minutes WHERE minute < ?').run(cutoffNs / NS_PER_MINUTE);
      db.prepare('DELETE FROM tool_hours WHERE hour < ?').run(cutoffNs / NS_PER_HOUR);
      db.prepare('DELETE FROM flags WHERE last_ns < ?').run(cutoffNs);
      db.prepare('DELETE FROM tool_schemas WHERE last_ns < ?').run(cutoffNs);
      db.prepare('DELETE FROM tool_shapes WHERE last_ns < ?').run(cutoffNs);
      db.prepare('DELETE FROM tool_paths WHERE minute < ?').run(cutoffNs / NS_PER_MINUTE);
      return seqs.length;
    });
  }

  /** Commits a plan in one transaction; on failure nothing of it is kept. */
  apply(plan: WritePlan): WriteOutcome {
    try {
      return this.#applyTx(plan);
    } catch (error) {
      // A rolled-back transaction may have inserted rows these caches now point to.
      this.forget();
      throw error;
    }
  }

  /** Deletes at most `maxTraces` traces that started before the cutoff, with their calls and rollups. */
  deleteBefore(cutoffNs: bigint, maxTraces: number): number {
    const deleted = this.#deleteTx(cutoffNs, maxTraces);
    if (deleted > 0) this.forget();
    return deleted;
  }

  forget(): void {
    this.#traceSeq.clear();
    this.#recentIds.clear();
    this.#resourceIds.clear();
    this.#rollupRows.clear();
    this.#detectors.forget();
  }

  #seqOf(traceId: string, startNs: bigint): { seq: number; created: boolean } {
    const cached = this.#traceSeq.get(traceId);
    if (cached !== undefined) return { seq: cached, created: false };
    const found = this.#stmt.findTrace.get(traceId);
    const seq = found
      ? found.seq
      : Number(this.#stmt.insertTrace.run(traceId, startNs).lastInsertRowid);
    if (this.#traceSeq.size >= CACHE_MAX) this.#traceSeq.clear();
    this.#traceSeq.set(traceId, seq);
    return { seq, created: !found };
  }

  /** Span ids already stored for a trace: from memory for recent traces, else from its blocks. */
  #storedIds(seq: number, created: boolean): Set<string> {
    let ids = this.#recentIds.get(seq);
    if (!ids) {
      ids = new Set<string>();
      if (!created)
        for (const row of this.#stmt.blockIds.all(seq))
          for (const id of row.split(' ')) ids.add(id);
      if (this.#recentIds.size >= CACHE_MAX) this.#recentIds.clear();
      this.#recentIds.set(seq, ids);
    }
    return ids;
  }

  #resourceId(json: string): number {
    const digest = createHash('sha1').update(json).digest('base64');
    const cached = this.#resourceIds.get(digest);
    if (cached !== undefined) return cached;
    const found = this.#stmt.findResource.get(digest);
    const id = found
      ? found.id
      : Number(this.#stmt.insertResource.run(digest, json).lastInsertRowid);
    if (this.#resourceIds.size >= 10_000) this.#resourceIds.clear();
    this.#resourceIds.set(digest, id);
    return id;
  }

  #apply(plan: WritePlan): WriteOutcome {
    const resourceIds = plan.resources.map((json) => this.#resourceId(json));
    const blocks = new Map<
      string,
      { seq: number; resourceId: number; ids: string[]; json: string[] }
    >();
    const minutes = new Map<string, Rollup>();
    const conversations = new Set<string>();
    const touch = newTouch();
    let inserted = 0;
    let toolCalls = 0;
    const n = plan.traceIds.length;
    for (let i = 0; i < n; i++) {
      const traceId = plan.traceIds[i] as string;
      const spanId = plan.spanIds[i] as string;
      const { seq, created } = this.#seqOf(traceId, plan.startNs[i] as bigint);
      const stored = this.#storedIds(seq, created);
      if (stored.has(spanId)) continue;
      stored.add(spanId);
      inserted++;
      const resourceId = resourceIds[plan.resource[i] as number] ?? 0;
      const key = `${seq}:${resourceId}`;
      let block = blocks.get(key);
      if (!block) {
        block = { seq, resourceId, ids: [], json: [] };
        blocks.set(key, block);
      }
      block.ids.push(spanId);
      block.json.push(plan.json[i] as string);
      const c = plan.call[i] as number;
      if (c < 0) continue;
      const call = plan.calls[c] as CallValues;
      toolCalls++;
      this.#stmt.insertCall.run(seq, ...call);
      const conversationId = call[20];
      if (conversationId) {
        // One row per (conversation, trace): most calls of a batch repeat a pair already written.
        const pair = `${seq}\u0000${conversationId}`;
        if (!conversations.has(pair)) {
          conversations.add(pair);
          this.#stmt.insertConversation.run(conversationId, seq);
        }
      }
      // Client-side spans are not counted and feed no detector: the server's span of the same call does
      // (counting both would double every call).
      if (call[22] !== KIND_CLIENT) {
        accumulate(minutes, call);
        touchCall(touch, seq, call);
      }
    }
    for (const b of blocks.values()) {
      this.#stmt.insertBlock.run(b.seq, b.resourceId, b.ids.join(' '), `[${b.json.join(',')}]`);
    }
    for (const r of withHours(minutes)) {
      const existing = this.#stmt.findRollup[r.table].get(r.bucket, r.tool, r.version, r.code);
      const hist = existing ? deserialize(existing.hist) : new Map<number, number>();
      mergeInto(hist, r.hist);
      this.#stmt.upsertRollup[r.table].run(
        r.bucket,
        r.tool,
        r.version,
        r.code,
        (existing?.calls ?? 0) + r.calls,
        (existing?.errors ?? 0) + r.errors,
        serialize(hist),
      );
    }
    this.#detectors.apply(touch);
    return { inserted, duplicates: n - inserted, toolCalls };
  }
}

function accumulate(rollups: Map<string, Rollup>, call: CallValues): void {
  const [, , , tool, rawVersion, , , rawCode, errorType, , errorFlag, , , , durationMs, startNs] =
    call;
  const version = rawVersion ?? '';
  const isError = errorFlag === 1;
  const code = codeKey(rawCode, errorType, isError);
  const bucket = startNs / NS_PER_MINUTE;
  const key = `${bucket}\u0000${tool}\u0000${version}\u0000${code}`;
  let r = rollups.get(key);
  if (!r) {
    r = {
      table: 'tool_minutes',
      bucket,
      tool,
      version,
      code,
      calls: 0,
      errors: 0,
      hist: new Map(),
    };
    rollups.set(key, r);
  }
  r.calls++;
  if (isError) r.errors++;
  addTo(r.hist, durationMs);
}

/** Hour rollups of a batch, derived from its minute rollups (hours keep long ranges cheap to read). */
function withHours(minutes: Map<string, Rollup>): Rollup[] {
  const hours = new Map<string, Rollup>();
  for (const m of minutes.values()) {
    const bucket = (m.bucket * NS_PER_MINUTE) / NS_PER_HOUR;
    const key = `${bucket}\u0000${m.tool}\u0000${m.version}\u0000${m.code}`;
    let h = hours.get(key);
    if (!h) {
      h = { ...m, table: 'tool_hours', bucket, calls: 0, errors: 0, hist: new Map() };
      hours.set(key, h);
    }
    h.calls += m.calls;
    h.errors += m.errors;
    mergeInto(h.hist, m.hist);
  }
  return [...minutes.values(), ...hours.values()];
}
