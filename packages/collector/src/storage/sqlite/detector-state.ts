// Detector bookkeeping of each batch on the SQLite writer thread, inside the batch's transaction: the detection
// stage's steps taken (loop-port.ts: its scopes read, their flags replaced, the filters stored; the stage decides
// which and what), and the per-tool schema, shape and failing-path tables that drift detection reads added to.
// Holds no detector state between batches: whatever the database holds decides.
import type Database from 'better-sqlite3';
import { contractRows } from '../../contracts/catalog-rows.js';
import type { BatchRows } from '../batch-rows.js';
import type { LoopDetection, LoopScopeRef, LoopStep, SequenceContext } from '../contract.js';
import {
  CONTRACT_COLUMNS,
  contractConflictSql,
  contractServiceConflictSql,
  contractValuesOf,
} from '../sql/contracts-migration.js';
import type { Row } from '../sql/db.js';
import {
  contextOf,
  deleteScopeFlagsArgs,
  deleteScopeFlagsSql,
  flagRowOf,
  INSERT_FLAG_SQL,
  keptFlagsSql,
  modelCallsFrom,
  scopeCallsArgs,
  scopeCallsSql,
  scopeModelCallsSql,
  sequenceOfArrays,
} from '../sql/scope-sql.js';

/**
 * Filters kept at most, by their bytes: 6 MiB, about what the 10,000 filters of one layer kept before took. A
 * filter grows with its conversation (up to 15.5 KiB, decision 0070), so a count alone would not bound them.
 */
const KEPT_BYTES = 6 * 1024 * 1024;
/** A kept filter's share of KEPT_BYTES; a null (no filter yet) counts as a row's worth, so many stay bounded. */
const keptSize = (keys: Uint8Array | null): number => keys?.length ?? 64;

/**
 * The bytes to keep of a filter: its own copy where it is a view into a larger buffer. The detection stage
 * writes a batch's filters into Node's 8 KiB pool (key-filter.ts `filterBytes`), and a kept view holds its whole
 * slab: 12,000 kept filters of 516 bytes (5.9 MiB, under KEPT_BYTES) held 94 MiB of slabs where other small
 * buffers came and went between them, 8.6 MiB as copies (decision 0071). Counting bytes bounds memory only if
 * the bytes are all that is held.
 */
export function keptBytes(keys: Uint8Array | null): Uint8Array | null {
  if (keys === null || (keys.byteOffset === 0 && keys.byteLength === keys.buffer.byteLength))
    return keys;
  return new Uint8Array(keys);
}

export class DetectorState {
  readonly #db: Database.Database;
  readonly #loops: LoopDetection;
  readonly #stmt;
  /** Statements whose SQL depends on a check (its tool and kind lists), prepared once each. */
  readonly #byText = new Map<string, Database.Statement>();
  /**
   * The key filters this writer read or stored, by conversation: the file's only writer, so they are what the
   * file holds, and a batch's checks need not read them again (null: the conversation has none yet).
   */
  readonly #filters = new Map<string, Uint8Array | null>();
  /** The bytes of the filters kept (#keep). */
  #keptBytes = 0;

  constructor(db: Database.Database, loops: LoopDetection) {
    this.#db = db;
    this.#loops = loops;
    this.#stmt = {
      traceModelCalls: db.prepare(scopeModelCallsSql('trace', 'sqlite')).safeIntegers(true),
      conversationModelCalls: db
        .prepare(scopeModelCallsSql('conversation', 'sqlite'))
        .safeIntegers(true),
      conversationKeys: db
        .prepare<[string], Buffer>('SELECT keys FROM conversations WHERE conversation_id = ?')
        .pluck(),
      saveConversationKeys: db.prepare(
        `INSERT INTO conversations (conversation_id, keys) VALUES (?, ?)
         ON CONFLICT (conversation_id) DO UPDATE SET keys = excluded.keys`,
      ),
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
  apply(rows: BatchRows, seqOf: (traceId: string) => number, created: Set<string>): void {
    const t = rows.tallies;
    for (const s of t.schemas.values())
      this.#stmt.upsertSchema.run(s.tool, s.version, s.hash, s.first, s.last, s.calls, s.traceId);
    for (const s of t.shapes.values())
      this.#stmt.upsertShape.run(s.tool, s.shape, s.first, s.last, s.calls, s.invalid);
    for (const p of t.paths.values())
      this.#stmt.upsertPath.run(p.tool, p.code, p.path, p.minute, p.count, p.traceId);
    for (const s of t.sources.values())
      this.#stmt.upsertSource.run(s.tool, s.source, s.side, s.first, s.last);
    if (rows.contracts.length > 0) {
      const { contracts, services } = contractRows(rows.contracts);
      for (const c of contracts) this.#stmt.upsertContract.run(...contractValuesOf(c));
      for (const s of services)
        this.#stmt.upsertContractService.run(s.tool, s.hash, s.service, s.firstNs, s.lastNs);
    }
    if (rows.counted.length === 0) return;

    const batch = this.#loops.forBatch(rows.counted);
    const filters = new Map<string, unknown>();
    for (const id of batch.conversations) filters.set(id, this.#filterOf(id));
    for (const step of batch.steps((traceId) => !created.has(traceId), filters))
      this.#take(step, seqOf);
  }

  /** One step of the detection stage's loop work, answered or made in the batch's transaction. */
  #take(step: LoopStep, seqOf: (traceId: string) => number): void {
    const seq =
      step.step !== 'filters' && step.check.scope === 'trace' ? seqOf(step.check.key) : -1;
    switch (step.step) {
      case 'calls':
        step.answer = sequenceOfArrays(
          this.#query(
            scopeCallsSql(step.check.scope, step.check.tools?.length ?? 0, 'sqlite'),
            true,
          ).all(...scopeCallsArgs(step.check, seq)) as unknown[][],
        );
        return;
      case 'context':
        step.answer = this.#context(step.check, seq, modelCallsFrom(step.sequence));
        return;
      case 'flags':
        this.#query(deleteScopeFlagsSql(step.check)).run(
          ...deleteScopeFlagsArgs(step.check, step.fromNs),
        );
        for (const f of step.flags) this.#stmt.insertFlag.run(...flagRowOf(step.check, f));
        return;
      case 'filters':
        for (const [id, keys] of step.filters) {
          this.#stmt.saveConversationKeys.run(id, keys);
          this.#keep(id, keys);
        }
        return;
    }
  }

  /** A conversation's stored key filter, as kept or read. */
  #filterOf(id: string): Uint8Array | null {
    const kept = this.#filters.get(id);
    if (kept !== undefined) return kept;
    // The kept bytes are what the stage is given: it changes them in place while it checks a batch.
    return this.#keep(id, this.#stmt.conversationKeys.get(id) ?? null);
  }

  /** Keeps a conversation's filter (a copy where `bytes` is a view, keptBytes) and returns what it kept. */
  #keep(id: string, bytes: Uint8Array | null): Uint8Array | null {
    const keys = keptBytes(bytes);
    // A filter replaced counts once.
    const before = this.#filters.get(id);
    if (before !== undefined) this.#keptBytes -= keptSize(before);
    if (this.#keptBytes + keptSize(keys) > KEPT_BYTES) {
      this.#filters.clear();
      this.#keptBytes = 0;
    }
    this.#filters.set(id, keys);
    this.#keptBytes += keptSize(keys);
    return keys;
  }

  /**
   * After a rolled-back transaction (the stage changes a filter's bytes in place while it checks a batch) or a
   * retention step (which deletes the filters of conversations it empties): read them from the file again.
   */
  forget(): void {
    this.#filters.clear();
    this.#keptBytes = 0;
  }

  /** What a scope's flags need beyond its calls: model calls from its oldest call read on, kept flags. */
  #context(check: LoopScopeRef, seq: number, from: bigint): SequenceContext {
    const models = (
      check.scope === 'trace'
        ? this.#stmt.traceModelCalls.all(seq, from)
        : this.#stmt.conversationModelCalls.all(check.key, from)
    ) as Row[];
    const kept =
      check.keep.length === 0
        ? []
        : (this.#query(keptFlagsSql(check.keep.length)).all(
            check.scope,
            check.key,
            ...check.keep,
          ) as Row[]);
    return contextOf(models, kept);
  }

  /** A statement prepared once per text; `raw`: its rows as arrays (a statement keeps its mode). */
  #query(sql: string, raw = false): Database.Statement {
    const key = raw ? `raw\u0000${sql}` : sql;
    let s = this.#byText.get(key);
    if (!s) {
      if (this.#byText.size >= 256) this.#byText.clear();
      s = this.#db.prepare(sql).safeIntegers(true);
      if (raw) s.raw(true);
      this.#byText.set(key, s);
    }
    return s;
  }
}
