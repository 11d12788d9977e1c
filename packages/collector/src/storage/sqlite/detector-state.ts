// Detector bookkeeping of each batch on the SQLite writer thread, inside the batch's transaction: retry-loop
// flags re-evaluated from stored calls for the scopes the batch may have completed a loop in (loop-scopes.ts),
// and the per-tool schema, shape and failing-path tables that drift detection reads. Holds no detector state
// between batches: whatever the database holds decides.
import type Database from 'better-sqlite3';
import { DEFAULT_LOOP_THRESHOLDS, type LoopThresholds } from '../../detectors/retry-loops.js';
import { type BatchTouch, scopeChecks } from '../batch-touch.js';
import { sideWhere } from '../call-side.js';
import { contractRows, contractValuesOf } from '../contract-rows.js';
import { bloomAdd, bloomHas, bloomOf } from '../key-bloom.js';
import {
  CONVERSATION_CALLS,
  evaluateScope,
  FLAG_COLUMNS,
  flagRow,
  groupKey,
  LOOP_CALL_COLUMNS,
  loopCallOf,
  type ScopeCheck,
} from '../loop-scopes.js';
import {
  CONTRACT_COLUMNS,
  contractConflictSql,
  contractServiceConflictSql,
} from '../sql/contracts-migration.js';
import type { Row } from '../sql/db.js';

/** The rows loop detection counts: each call once (call-side.ts). */
const COUNTED = sideWhere('any');

export class DetectorState {
  readonly #db: Database.Database;
  readonly #thresholds: LoopThresholds;
  readonly #stmt;
  readonly #byCount = new Map<string, Database.Statement>();

  constructor(db: Database.Database, thresholds: Partial<LoopThresholds> = {}) {
    this.#db = db;
    this.#thresholds = { ...DEFAULT_LOOP_THRESHOLDS, ...thresholds };
    this.#stmt = {
      conversationKeys: db
        .prepare<[string], Buffer>('SELECT keys FROM conversations WHERE conversation_id = ?')
        .pluck(),
      saveConversationKeys: db.prepare(
        `INSERT INTO conversations (conversation_id, keys) VALUES (?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET keys = excluded.keys`,
      ),
      deleteGroupFlags: db.prepare(
        'DELETE FROM flags WHERE scope = ? AND scope_key = ? AND tool = ? AND input_hash = ?',
      ),
      insertFlag: db.prepare(
        `INSERT INTO flags (${FLAG_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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

    const blooms = new Map<string, Uint8Array>();
    const bloomFor = (conversationId: string) => {
      let b = blooms.get(conversationId);
      if (!b) {
        b = bloomOf(this.#stmt.conversationKeys.get(conversationId));
        blooms.set(conversationId, b);
      }
      return b;
    };
    const checks = scopeChecks(
      t,
      (traceId) => !created.has(traceId),
      (conversationId, key) => bloomHas(bloomFor(conversationId), key),
    );
    // The batch's keys join their conversations' filters after the checks read them; a filter is written back
    // only when a key set a new bit (most batches of a running conversation repeat known keys).
    const changed = new Set<string>();
    for (const c of t.calls) {
      if (!c.conversationId) continue;
      if (bloomAdd(bloomFor(c.conversationId), groupKey(c.tool, c.inputHash)))
        changed.add(c.conversationId);
    }
    for (const id of changed) this.#stmt.saveConversationKeys.run(id, bloomFor(id));
    for (const check of checks) this.#evaluate(check, seqOf);
  }

  #evaluate(check: ScopeCheck, seqOf: (traceId: string) => number): void {
    const hashes = [...new Set(check.groups.map((g) => g.inputHash))];
    const marks = hashes.map(() => '?').join(', ');
    const rows =
      check.scope === 'trace'
        ? this.#query(
            `SELECT ${LOOP_CALL_COLUMNS} FROM tool_calls WHERE trace_seq = ? AND ${COUNTED} AND input_hash IN (${marks})`,
          ).all(seqOf(check.key), ...hashes)
        : this.#query(
            `SELECT ${LOOP_CALL_COLUMNS} FROM tool_calls
              WHERE trace_seq IN (SELECT trace_seq FROM conversation_traces WHERE conversation_id = ?)
                AND conversation_id = ? AND ${COUNTED} AND input_hash IN (${marks})
              ORDER BY start_ns DESC LIMIT ${CONVERSATION_CALLS}`,
          ).all(check.key, check.key, ...hashes);
    for (const { group, flags } of evaluateScope(
      check,
      (rows as Row[]).map(loopCallOf),
      this.#thresholds,
    )) {
      this.#stmt.deleteGroupFlags.run(check.scope, check.key, group.tool, group.inputHash);
      for (const f of flags) this.#stmt.insertFlag.run(...flagRow(check, group, f));
    }
  }

  /** Statements with an IN list, one per list length (prepared once each). */
  #query(sql: string): Database.Statement {
    let s = this.#byCount.get(sql);
    if (!s) {
      if (this.#byCount.size >= 256) this.#byCount.clear();
      s = this.#db.prepare(sql).safeIntegers(true);
      this.#byCount.set(sql, s);
    }
    return s;
  }
}
