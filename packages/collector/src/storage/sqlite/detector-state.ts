// Detector bookkeeping of each batch on the SQLite writer thread, inside the batch's transaction: the loop
// scopes the detection stage asks for are read and their flags replaced (the stage decides which and what), and
// the per-tool schema, shape and failing-path tables that drift detection reads are added to. Holds no detector
// state between batches: whatever the database holds decides.
import type Database from 'better-sqlite3';
import type { BatchTouch } from '../batch-touch.js';
import type { LoopDetection, LoopScopeRef } from '../contract.js';
import { contractRows, contractValuesOf } from '../contract-rows.js';
import {
  CONTRACT_COLUMNS,
  contractConflictSql,
  contractServiceConflictSql,
} from '../sql/contracts-migration.js';
import type { Row } from '../sql/db.js';
import {
  DELETE_SCOPE_FLAGS_SQL,
  flagRowOf,
  INSERT_FLAG_SQL,
  modelCallsFrom,
  scopeCallsSql,
  scopeModelCallsSql,
  sequenceOf,
} from '../sql/scope-sql.js';

export class DetectorState {
  readonly #loops: LoopDetection;
  readonly #stmt;

  constructor(db: Database.Database, loops: LoopDetection) {
    this.#loops = loops;
    this.#stmt = {
      traceCalls: db.prepare(scopeCallsSql('trace')).safeIntegers(true),
      conversationCalls: db.prepare(scopeCallsSql('conversation')).safeIntegers(true),
      traceModelCalls: db.prepare(scopeModelCallsSql('trace')).safeIntegers(true),
      conversationModelCalls: db.prepare(scopeModelCallsSql('conversation')).safeIntegers(true),
      conversationKeys: db
        .prepare<[string], Buffer>('SELECT keys FROM conversations WHERE conversation_id = ?')
        .pluck(),
      saveConversationKeys: db.prepare(
        `INSERT INTO conversations (conversation_id, keys) VALUES (?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET keys = excluded.keys`,
      ),
      deleteScopeFlags: db.prepare(DELETE_SCOPE_FLAGS_SQL),
      insertFlag: db.prepare(INSERT_FLAG_SQL),
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
      upsertSource: db.prepare(
        `INSERT INTO tool_sources (tool, source, side, first_ns, last_ns) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (tool, source, side) DO UPDATE SET first_ns = min(first_ns, excluded.first_ns),
           last_ns = max(last_ns, excluded.last_ns)`,
      ),
      upsertContract: db.prepare(
        `INSERT INTO tool_contracts (${CONTRACT_COLUMNS}) VALUES (${CONTRACT_COLUMNS.split(',')
          .map(() => '?')
          .join(', ')}) ${contractConflictSql('min', 'max', 'tool_contracts')}`,
      ),
      upsertContractService: db.prepare(
        `INSERT INTO tool_contract_services (tool, schema_hash, service, first_ns, last_ns) VALUES (?, ?, ?, ?, ?)
         ${contractServiceConflictSql('min', 'max', 'tool_contract_services')}`,
      ),
      upsertPath: db.prepare(
        `INSERT INTO tool_paths (tool, code, path, minute, count, last_trace_id) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (tool, code, path, minute) DO UPDATE SET count = count + excluded.count, last_trace_id = excluded.last_trace_id`,
      ),
    };
  }

  /**
   * Applies a batch's detector changes (inside the batch's transaction). `seqOf` maps the batch's trace ids to
   * their row numbers; `created` holds the traces this batch created.
   */
  apply(t: BatchTouch, seqOf: (traceId: string) => number, created: Set<string>): void {
    for (const s of t.schemas.values())
      this.#stmt.upsertSchema.run(s.tool, s.version, s.hash, s.first, s.last, s.calls, s.traceId);
    for (const s of t.shapes.values())
      this.#stmt.upsertShape.run(s.tool, s.shape, s.first, s.last, s.calls, s.invalid);
    for (const p of t.paths.values())
      this.#stmt.upsertPath.run(p.tool, p.code, p.path, p.minute, p.count, p.traceId);
    for (const s of t.sources.values())
      this.#stmt.upsertSource.run(s.tool, s.source, s.side, s.first, s.last);
    if (t.contracts.length > 0) {
      const { contracts, services } = contractRows(t.contracts);
      for (const c of contracts) this.#stmt.upsertContract.run(...contractValuesOf(c));
      for (const s of services)
        this.#stmt.upsertContractService.run(s.tool, s.hash, s.service, s.firstNs, s.lastNs);
    }
    if (t.calls.length === 0) return;

    const batch = this.#loops.forBatch(t.calls);
    const filters = new Map<string, unknown>();
    for (const id of batch.conversations) filters.set(id, this.#stmt.conversationKeys.get(id));
    for (const check of batch.checks((traceId) => !created.has(traceId), filters)) {
      const sequence = this.#read(check, seqOf);
      this.#stmt.deleteScopeFlags.run(check.scope, check.key, sequence.fromNs ?? 0n);
      for (const f of batch.evaluate(check, sequence))
        this.#stmt.insertFlag.run(...flagRowOf(check, f));
    }
    for (const [id, keys] of batch.changedFilters()) this.#stmt.saveConversationKeys.run(id, keys);
  }

  /** A scope's call sequence: its newest counted calls, and the model calls from the oldest of them on. */
  #read(check: LoopScopeRef, seqOf: (traceId: string) => number) {
    const trace = check.scope === 'trace';
    const calls = (
      trace
        ? this.#stmt.traceCalls.all(seqOf(check.key))
        : this.#stmt.conversationCalls.all(check.key, check.key)
    ) as Row[];
    const from = modelCallsFrom(calls);
    const models = (
      trace
        ? this.#stmt.traceModelCalls.all(seqOf(check.key), from)
        : this.#stmt.conversationModelCalls.all(check.key, from)
    ) as Row[];
    return sequenceOf(calls, models);
  }
}
