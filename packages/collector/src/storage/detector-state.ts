// Detector bookkeeping done with each batch on the writer thread: retry-loop flags re-evaluated for the traces
// and conversations the batch touched, and the per-tool schema, shape and failing-path tables that drift
// detection reads. Runs inside the batch's transaction.
import type Database from 'better-sqlite3';
import {
  DEFAULT_LOOP_THRESHOLDS,
  detectLoops,
  type LoopCall,
  type LoopThresholds,
} from '../detectors/retry-loops.js';
import type { CallValues } from './write-plan.js';

const NS_PER_MINUTE = 60_000_000_000n;
const CONVERSATION_CALLS = 2000;

type CallRow = {
  trace_id: string;
  span_id: string;
  tool: string;
  input_hash: string | null;
  start_ns: bigint;
  code: string | null;
  retryable: bigint | null;
  partial_effect: bigint;
  effect: string | null;
  idempotency_key_hash: string | null;
};

function loopCall(r: CallRow): LoopCall {
  return {
    traceId: r.trace_id,
    spanId: r.span_id,
    tool: r.tool,
    inputHash: r.input_hash,
    startNs: r.start_ns,
    code: r.code,
    retryable: r.retryable === null ? null : r.retryable === 1n,
    partialEffect: r.partial_effect === 1n,
    effect: r.effect,
    idempotencyKeyHash: r.idempotency_key_hash,
  };
}

const CALL_COLUMNS = `trace_id, span_id, tool, input_hash, start_ns, COALESCE(code, error_type) AS code, retryable,
  partial_effect, effect, idempotency_key_hash`;

export type TouchedCall = {
  seq: number;
  traceId: string;
  conversationId: string | null;
  key: string;
  failed: boolean;
};

export type BatchTouch = {
  calls: TouchedCall[];
  schemas: Map<
    string,
    {
      tool: string;
      version: string;
      hash: string;
      first: bigint;
      last: bigint;
      calls: number;
      traceId: string;
    }
  >;
  shapes: Map<
    string,
    { tool: string; shape: string; first: bigint; last: bigint; calls: number; invalid: number }
  >;
  paths: Map<
    string,
    { tool: string; code: string; path: string; minute: bigint; count: number; traceId: string }
  >;
};

export function newTouch(): BatchTouch {
  return {
    calls: [],
    schemas: new Map(),
    shapes: new Map(),
    paths: new Map(),
  };
}

/** Records what one new, non-client tool call changes for the detectors. */
export function touchCall(t: BatchTouch, seq: number, call: CallValues): void {
  const traceId = call[0];
  const tool = call[3];
  const version = call[4];
  const schemaHash = call[5];
  const code = call[7];
  const startNs = call[15];
  const issues = call[16];
  const inputHash = call[17];
  const inputShape = call[18];
  const conversationId = call[20];
  if (inputHash !== null) {
    t.calls.push({
      seq,
      traceId,
      conversationId,
      key: `${tool}\u0000${inputHash}`,
      failed: code !== null,
    });
  }
  if (version !== null && schemaHash !== null) {
    const key = `${tool}\u0000${version}\u0000${schemaHash}`;
    const s = t.schemas.get(key);
    if (s) {
      s.calls++;
      if (startNs < s.first) s.first = startNs;
      if (startNs > s.last) {
        s.last = startNs;
        s.traceId = traceId;
      }
    } else
      t.schemas.set(key, {
        tool,
        version,
        hash: schemaHash,
        first: startNs,
        last: startNs,
        calls: 1,
        traceId,
      });
  }
  if (inputShape !== null) {
    const key = `${tool}\u0000${inputShape}`;
    const s = t.shapes.get(key) ?? {
      tool,
      shape: inputShape,
      first: startNs,
      last: startNs,
      calls: 0,
      invalid: 0,
    };
    s.calls++;
    if (code === 'INVALID_INPUT') s.invalid++;
    if (startNs < s.first) s.first = startNs;
    if (startNs > s.last) s.last = startNs;
    t.shapes.set(key, s);
  }
  if (issues !== null && (code === 'INVALID_INPUT' || code === 'INVALID_OUTPUT')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(issues);
    } catch {
      parsed = [];
    }
    const minute = startNs / NS_PER_MINUTE;
    for (const issue of Array.isArray(parsed) ? parsed : []) {
      const path =
        typeof issue === 'object' && issue !== null ? Reflect.get(issue, 'path') : undefined;
      if (typeof path !== 'string') continue;
      const key = `${tool}\u0000${code}\u0000${path}\u0000${minute}`;
      const p = t.paths.get(key) ?? { tool, code, path, minute, count: 0, traceId };
      p.count++;
      p.traceId = traceId;
      t.paths.set(key, p);
    }
  }
}

const SCOPE_MEMORY = 50_000;

export class DetectorState {
  readonly #thresholds: LoopThresholds;
  /**
   * Per trace or conversation: how often each (tool, input hash) was called and whether one of those calls
   * failed. A scope is re-evaluated only when a key repeats with a failure among its calls, so detection
   * costs nothing for the (usual) scopes without repeats. Bounded; a loop that spans a restart of the
   * collector is found only from the restart on.
   */
  readonly #scopes = new Map<string, Map<string, { count: number; failed: boolean }>>();
  readonly #stmt;

  constructor(db: Database.Database, thresholds: Partial<LoopThresholds> = {}) {
    this.#thresholds = { ...DEFAULT_LOOP_THRESHOLDS, ...thresholds };
    this.#stmt = {
      callsOfTrace: db
        .prepare(`SELECT ${CALL_COLUMNS} FROM tool_calls WHERE trace_seq = ? AND kind != 3`)
        .safeIntegers(true),
      callsOfConversation: db
        .prepare(
          `SELECT ${CALL_COLUMNS} FROM tool_calls WHERE trace_seq IN (SELECT trace_seq FROM conversation_traces WHERE conversation_id = ?)
             AND conversation_id = ? AND kind != 3 ORDER BY start_ns DESC LIMIT ${CONVERSATION_CALLS}`,
        )
        .safeIntegers(true),
      deleteFlags: db.prepare('DELETE FROM flags WHERE scope = ? AND scope_key = ?'),
      insertFlag: db.prepare(
        `INSERT INTO flags (kind, severity, tool, scope, scope_key, trace_id, conversation_id, count, first_ns, last_ns, summary, evidence)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      upsertSchema: db.prepare(
        `INSERT INTO tool_schemas (tool, version, schema_hash, first_ns, last_ns, calls, last_trace_id) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tool, version, schema_hash) DO UPDATE SET first_ns = min(first_ns, excluded.first_ns),
           last_trace_id = CASE WHEN excluded.last_ns > last_ns THEN excluded.last_trace_id ELSE last_trace_id END,
           last_ns = max(last_ns, excluded.last_ns), calls = calls + excluded.calls`,
      ),
      upsertShape: db.prepare(
        `INSERT INTO tool_shapes (tool, shape, first_ns, last_ns, calls, invalid) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (tool, shape) DO UPDATE SET first_ns = min(first_ns, excluded.first_ns), last_ns = max(last_ns, excluded.last_ns),
           calls = calls + excluded.calls, invalid = invalid + excluded.invalid`,
      ),
      upsertPath: db.prepare(
        `INSERT INTO tool_paths (tool, code, path, minute, count, last_trace_id) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (tool, code, path, minute) DO UPDATE SET count = count + excluded.count, last_trace_id = excluded.last_trace_id`,
      ),
    };
  }

  /** Applies a batch's detector changes (inside the batch's transaction). */
  apply(t: BatchTouch): void {
    for (const s of t.schemas.values())
      this.#stmt.upsertSchema.run(s.tool, s.version, s.hash, s.first, s.last, s.calls, s.traceId);
    for (const s of t.shapes.values())
      this.#stmt.upsertShape.run(s.tool, s.shape, s.first, s.last, s.calls, s.invalid);
    for (const p of t.paths.values())
      this.#stmt.upsertPath.run(p.tool, p.code, p.path, p.minute, p.count, p.traceId);
    const dirtyTraces = new Map<number, string>();
    const dirtyConversations = new Set<string>();
    for (const call of t.calls) {
      if (this.#remember(`t:${call.seq}`, call)) dirtyTraces.set(call.seq, call.traceId);
      if (call.conversationId && this.#remember(`c:${call.conversationId}`, call))
        dirtyConversations.add(call.conversationId);
    }
    for (const [seq, traceId] of dirtyTraces) {
      const calls = (this.#stmt.callsOfTrace.all(seq) as CallRow[]).map(loopCall);
      this.#replace('trace', traceId, traceId, null, detectLoops(calls, this.#thresholds));
    }
    for (const conversationId of dirtyConversations) {
      const calls = (
        this.#stmt.callsOfConversation.all(conversationId, conversationId) as CallRow[]
      ).map(loopCall);
      // A loop inside one trace is already flagged there; the conversation adds loops across its traces.
      const flags = detectLoops(calls, this.#thresholds).filter((f) => f.traceIds.length > 1);
      this.#replace('conversation', conversationId, null, conversationId, flags);
    }
  }

  /** Counts a call in a scope; true when its key has repeated and one of its calls failed. */
  #remember(scope: string, call: TouchedCall): boolean {
    let keys = this.#scopes.get(scope);
    if (keys) {
      // Re-inserting keeps the Map in least-recently-used order for eviction.
      this.#scopes.delete(scope);
    } else {
      keys = new Map();
      while (this.#scopes.size >= SCOPE_MEMORY) {
        const oldest = this.#scopes.keys().next();
        if (oldest.done) break;
        this.#scopes.delete(oldest.value);
      }
    }
    this.#scopes.set(scope, keys);
    const entry = keys.get(call.key) ?? { count: 0, failed: false };
    entry.count++;
    entry.failed ||= call.failed;
    keys.set(call.key, entry);
    return entry.count >= 2 && entry.failed;
  }

  /** Forgets scope counts (after a rollback or retention delete). */
  forget(): void {
    this.#scopes.clear();
  }

  #replace(
    scope: 'trace' | 'conversation',
    key: string,
    traceId: string | null,
    conversationId: string | null,
    flags: ReturnType<typeof detectLoops>,
  ): void {
    this.#stmt.deleteFlags.run(scope, key);
    for (const f of flags) {
      this.#stmt.insertFlag.run(
        f.kind,
        f.severity,
        f.tool,
        scope,
        key,
        traceId,
        conversationId,
        f.count,
        f.firstNs,
        f.lastNs,
        f.summary,
        JSON.stringify({ traceIds: f.traceIds, spanIds: f.spanIds, inputHash: f.inputHash }),
      );
    }
  }
}
