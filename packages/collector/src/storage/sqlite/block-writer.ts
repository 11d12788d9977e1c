// SQLite's writer (runs on the writer thread): trace ids to row numbers, the batch's rows (the write stages
// make them against what is stored, batch-rows.ts) inserted, and the minute and hour rollups added to, all in
// one transaction.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Rollup } from '../../aggregation/rollups.js';
import type { BatchRows, BlockRow, ModelCallRow, WriteStages } from '../batch-rows.js';
import {
  CALL_ROW_COLUMNS,
  CALL_ROW_LENGTH,
  callRow,
  EXTEND_ROW_SQL,
  extendedRow,
  JOIN_ROW_SQL,
  joinedRow,
  type RowEncoding,
} from '../call-row.js';
import type { WriteOutcome } from '../contract.js';
import { NS_PER_HOUR, NS_PER_MINUTE, type Row } from '../sql/db.js';
import { STORED_CALL_COLUMNS, storedCallOf } from '../stored-calls.js';
import { batchOf, type WriteInput } from '../threads/sealed-batch.js';
import type { WriteBatch } from '../write-batch.js';
import { KeyBuffers, StringIds } from './call-rows.js';
import { DetectorState } from './detector-state.js';
import { linkedRows } from './link-rows.js';
import { RollupRows } from './rollup-rows.js';

export class BlockWriter {
  readonly #traceSeq = new Map<string, number>();
  readonly #recentIds = new Map<number, Set<string>>();
  readonly #resourceIds = new Map<string, number>();
  readonly #strings: StringIds;
  readonly #encoding: RowEncoding;
  /** The one call row each insert is made in: bound before the next is made. */
  readonly #callRow: unknown[] = new Array(CALL_ROW_LENGTH);
  readonly #stmt;
  readonly #applyTx: (batch: WriteBatch) => WriteOutcome;
  readonly #stages: WriteStages;
  readonly #detectors: DetectorState;
  readonly #rollups: RollupRows;
  readonly #deleteTx: (cutoffNs: bigint, maxTraces: number) => number;
  readonly #db: Database.Database;
  /** How many traces the two caches below keep (memory-shares.ts); past it they start over. */
  readonly #cacheMax: number;

  constructor(db: Database.Database, stages: WriteStages, recentTraces = 50_000) {
    this.#cacheMax = recentTraces;
    this.#stages = stages;
    this.#db = db;
    this.#detectors = new DetectorState(db, stages.loops);
    this.#rollups = new RollupRows(db);
    const strings = new StringIds(db);
    this.#strings = strings;
    const keys = new KeyBuffers();
    this.#encoding = { key: (v) => keys.key(v), id: (v) => strings.id(v) };
    this.#stmt = {
      findTrace: db.prepare<[string], { seq: number }>('SELECT seq FROM traces WHERE trace_id = ?'),
      // A new trace is one statement: the insert says whether it was new (RETURNING only what it inserted).
      insertTrace: db.prepare<[string, bigint], { seq: number }>(
        'INSERT INTO traces (trace_id, first_ns) VALUES (?, ?) ON CONFLICT (trace_id) DO NOTHING RETURNING seq',
      ),
      findResource: db.prepare<[string], { id: number }>(
        'SELECT id FROM resources WHERE digest = ?',
      ),
      insertResource: db.prepare('INSERT INTO resources (digest, attributes) VALUES (?, ?)'),
      insertBlock: db.prepare(
        // `spans` held the JSON text before v10; it stays for those rows, and is '' (NOT NULL) in new ones.
        "INSERT INTO span_blocks (trace_seq, resource_id, span_ids, spans, packed) VALUES (?, ?, ?, '', ?)",
      ),
      blockIds: db
        .prepare<[number], string>('SELECT span_ids FROM span_blocks WHERE trace_seq = ?')
        .pluck(),
      insertCall: db.prepare(
        `INSERT INTO tool_call_rows (${CALL_ROW_COLUMNS})
         VALUES (${CALL_ROW_COLUMNS.split(',')
           .map(() => '?')
           .join(', ')})`,
      ),
      storedCalls: db
        .prepare(`SELECT ${STORED_CALL_COLUMNS} FROM tool_calls WHERE trace_seq = ?`)
        .safeIntegers(true),
      setPaired: db.prepare('UPDATE tool_call_rows SET paired = 1 WHERE id = ?'),
      setJoined: db.prepare(JOIN_ROW_SQL),
      extendRow: db.prepare(EXTEND_ROW_SQL),
      insertModelCall: db.prepare(
        'INSERT INTO model_calls (trace_seq, start_ns, end_ns, input_tokens, output_tokens) VALUES (?, ?, ?, ?, ?)',
      ),
      insertConversation: db.prepare(
        'INSERT OR IGNORE INTO conversation_traces (conversation_id, trace_seq) VALUES (?, ?)',
      ),
    };
    this.#applyTx = db.transaction((batch: WriteBatch) => this.#apply(batch));
    this.#deleteTx = db.transaction((cutoffNs: bigint, maxTraces: number) => {
      const seqs = db
        .prepare('SELECT seq FROM traces WHERE first_ns < ? ORDER BY first_ns LIMIT ?')
        .pluck()
        .all(cutoffNs, maxTraces) as number[];
      if (seqs.length === 0) return 0;
      // Conversations that lose their last trace lose their key filter too (detection/key-filter.ts).
      const marks = seqs.map(() => '?').join(', ');
      const conversations = db
        .prepare(
          `SELECT DISTINCT conversation_id FROM conversation_traces WHERE trace_seq IN (${marks})`,
        )
        .pluck()
        .all(...seqs) as string[];
      const statements = [
        'span_blocks',
        'tool_call_rows',
        'model_calls',
        'conversation_traces',
      ].map((t) => db.prepare(`DELETE FROM ${t} WHERE trace_seq = ?`));
      const trace = db.prepare('DELETE FROM traces WHERE seq = ?');
      for (const seq of seqs) {
        for (const s of statements) s.run(seq);
        trace.run(seq);
      }
      const orphan = db.prepare(
        `DELETE FROM conversations WHERE conversation_id = ?
           AND NOT EXISTS (SELECT 1 FROM conversation_traces WHERE conversation_id = ?)`,
      );
      for (const id of conversations) orphan.run(id, id);
      for (const table of ['tool_minutes', 'tool_client_minutes'])
        db.prepare(`DELETE FROM ${table} WHERE minute < ?`).run(cutoffNs / NS_PER_MINUTE);
      for (const table of ['tool_hours', 'tool_client_hours'])
        db.prepare(`DELETE FROM ${table} WHERE hour < ?`).run(cutoffNs / NS_PER_HOUR);
      db.prepare('DELETE FROM flags WHERE last_ns < ?').run(cutoffNs);
      db.prepare('DELETE FROM tool_schemas WHERE last_ns < ?').run(cutoffNs);
      db.prepare('DELETE FROM tool_shapes WHERE last_ns < ?').run(cutoffNs);
      db.prepare('DELETE FROM tool_paths WHERE minute < ?').run(cutoffNs / NS_PER_MINUTE);
      return seqs.length;
    });
  }

  /**
   * Commits a batch, or sealed batches joined as one (threads/sealed-batch.ts), in one transaction; on failure
   * nothing of it is kept.
   */
  apply(input: WriteInput): WriteOutcome {
    try {
      return this.#applyTx(batchOf(input, this.#stages.merge));
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
    this.#strings.forget();
    this.#rollups.forget();
    this.#detectors.forget();
  }

  /** Caches of rows this writer read or wrote; the only writer of the file, so they stay exact. */
  #seqOf(traceId: string, startNs: bigint): { seq: number; created: boolean } {
    const cached = this.#traceSeq.get(traceId);
    if (cached !== undefined) return { seq: cached, created: false };
    const inserted = this.#stmt.insertTrace.get(traceId, startNs);
    const seq = inserted ? inserted.seq : (this.#stmt.findTrace.get(traceId)?.seq ?? -1);
    if (seq < 0) throw new Error('a trace row was neither inserted nor found');
    if (this.#traceSeq.size >= this.#cacheMax) this.#traceSeq.clear();
    this.#traceSeq.set(traceId, seq);
    return { seq, created: inserted !== undefined };
  }

  /** Span ids already stored for a trace: from memory for recent traces, else from its blocks. */
  #storedIds(seq: number, created: boolean): Set<string> {
    let ids = this.#recentIds.get(seq);
    if (!ids) {
      ids = new Set<string>();
      if (!created)
        for (const row of this.#stmt.blockIds.all(seq))
          for (const id of row.split(' ')) ids.add(id);
      if (this.#recentIds.size >= this.#cacheMax) this.#recentIds.clear();
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

  #apply(batch: WriteBatch): WriteOutcome {
    const resourceIds = batch.resources.map((json) => this.#resourceId(json));
    const seqs = new Map<string, number>();
    const created = new Set<string>();
    const a = this.#stages.rows(batch, {
      seqOf: (traceId, startNs) => {
        let seq = seqs.get(traceId);
        if (seq === undefined) {
          const found = this.#seqOf(traceId, startNs);
          seq = found.seq;
          seqs.set(traceId, seq);
          if (found.created) created.add(traceId);
        }
        return seq;
      },
      storedIds: (seq, traceId) => this.#storedIds(seq, created.has(traceId)),
      resourceIds,
      storedCalls: (seq) => (this.#stmt.storedCalls.all(seq) as Row[]).map(storedCallOf),
      linkedCalls: () => linkedRows(this.#db, this.#stages.links(batch), seqs),
    });
    // Indexed loops: #apply runs once per batch, unoptimized, where for-of allocated a result per row.
    const calls = a.calls;
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i] as BatchRows['calls'][number];
      this.#stmt.insertCall.run(
        callRow(c.seq, c.call, c.paired, c.part, this.#encoding, this.#callRow),
      );
    }
    for (const id of a.pairedIds) this.#stmt.setPaired.run(id);
    for (const j of a.joined) this.#stmt.setJoined.run(joinedRow(j));
    for (const x of a.extended) this.#stmt.extendRow.run(extendedRow(x.id, x.call, this.#encoding));
    const pairs = a.conversationPairs;
    for (let i = 0; i < pairs.length; i++) {
      const p = pairs[i] as BatchRows['conversationPairs'][number];
      this.#stmt.insertConversation.run(p.conversationId, p.seq);
    }
    const blocks = a.blocks;
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i] as BlockRow;
      this.#stmt.insertBlock.run(b.seq, b.resourceId, b.spanIds, b.packed);
    }
    const models = a.modelCalls;
    for (let i = 0; i < models.length; i++) {
      const m = models[i] as ModelCallRow;
      this.#stmt.insertModelCall.run(m.seq, m.startNs, m.endNs, m.inputTokens, m.outputTokens);
    }
    const rollups = a.rollups;
    for (let i = 0; i < rollups.length; i++) this.#rollups.add(rollups[i] as Rollup);
    this.#detectors.apply(a, (traceId) => seqs.get(traceId) ?? -1, created);
    return { inserted: a.inserted, duplicates: a.duplicates, toolCalls: a.toolCalls };
  }
}
