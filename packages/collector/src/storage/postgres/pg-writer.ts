// The PostgreSQL writer: one transaction per batch, safe with any number of collectors writing at once. Rows a
// batch shares with other writers are locked in one global order (its traces by id, then the link hashes of its
// parts of logical calls, then its conversations, then its new resources and strings, then the detector rows by
// key; rollup rows are appended and lock nothing, pg-rollups.ts), so concurrent batches of one trace, call or
// conversation run one after the other and never deadlock among themselves; each then sees the other's calls
// when it re-evaluates loops.
import type pg from 'pg';
import type { StoredCall } from '../../calls/pairing.js';
import type { StoredCallRow, WriteStages } from '../batch-rows.js';
import {
  CALL_ROW_COLUMNS,
  CALL_ROW_LENGTH,
  callRow,
  EXTEND_ROW_SQL,
  extendedRow,
  internedOf,
  JOIN_ROW_SQL,
  joinedRow,
  type RowEncoding,
} from '../call-row.js';
import type { WriteOutcome } from '../contract.js';
import type { Row, SqlValue } from '../sql/db.js';
import { STORED_CALL_COLUMNS, storedCallOf } from '../stored-calls.js';
import { batchOf, type WriteInput } from '../threads/sealed-batch.js';
import type { WriteBatch } from '../write-batch.js';
import { conversationsOf, lockedConversationFilters } from './pg-conversations.js';
import { type Cell, CopyText, sendCopy } from './pg-copy.js';
import { BLOCK_COLUMNS, blockRowsCopy } from './pg-copy-binary.js';
import { arrayParams, param, prepared, toDollars } from './pg-db.js';
import { InternedIds, type Learned, newLearned } from './pg-interned.js';
import { lockedLinkedCalls } from './pg-links.js';
import { evaluateLoops } from './pg-rows.js';
import { saveTallies } from './pg-tallies.js';
import { inPipelinedTransaction, type Later, sent } from './pg-transaction.js';

/** About the COPY text of one call row (221 bytes in bench:ingest): its buffer's first size per row. */
const ROW_BYTES = 256;

export class PgWriter {
  readonly #pool: pg.Pool;
  readonly #stages: WriteStages;
  readonly #ids = new InternedIds();
  constructor(pool: pg.Pool, stages: WriteStages) {
    this.#pool = pool;
    this.#stages = stages;
  }

  /** Commits a batch, or sealed batches joined as one (threads/sealed-batch.ts), in one transaction. */
  async write(input: WriteInput): Promise<WriteOutcome> {
    // The ids an attempt learns join the caches only once it has committed: an attempt run again after a
    // deadlock must not take the ids of rows its rolled-back predecessor inserted (nothing would point at a
    // stored string or resource then).
    let learned = newLearned();
    const outcome = await inPipelinedTransaction(this.#pool, (client, later) => {
      learned = newLearned();
      // Each attempt opens the sealed batches itself (one run again after a deadlock opens them again), so that
      // nothing holds the opened batch once #apply has sent its statements: it is garbage while the write waits
      // for their answers and the commit, not copied by every young-generation collection meanwhile and
      // promoted (docs/decisions/0083).
      return this.#apply(client, later, batchOf(input, this.#stages.merge), learned);
    });
    this.#ids.remember(learned);
    return outcome;
  }

  /**
   * The batch's statements. Those whose answers it needs are awaited; the rest go to `later`, written at once
   * behind them and answered before the commit counts (inPipelinedTransaction): on the bench's batches a write is
   * two round trips (its traces with its conversations' locks and filters, then everything else with COMMIT).
   */
  async #apply(
    client: pg.PoolClient,
    later: Later,
    plan: WriteBatch,
    learned: Learned,
  ): Promise<WriteOutcome> {
    const tracesSent = lockTraces(client, plan);
    // Conversations next in the lock order, written with the traces when no link hashes come between
    // (pg-conversations.ts); in either case before the batch's new resources and strings are inserted, so that
    // every batch takes those after its conversations. Early rather than just before the loops are evaluated:
    // measured both ways (docs/decisions/0028), the late lock was no faster with one collector and slower with
    // two.
    const links = this.#stages.links(plan);
    const conversations = conversationsOf(plan.calls);
    const lockFilters = () => sent(lockedConversationFilters(client, later, conversations));
    let filtersRead = links.locks.length === 0 ? lockFilters() : null;
    const { seqs, created, existing } = await tracesSent;
    const stored = new Map<number, Set<string>>();
    if (existing.length > 0) {
      const blocks = await client.query<{ trace_seq: string; span_ids: string }>(
        'SELECT trace_seq, span_ids FROM span_blocks WHERE trace_seq = ANY($1::bigint[])',
        arrayParams([existing]),
      );
      for (const b of blocks.rows) {
        const set = stored.get(Number(b.trace_seq)) ?? new Set<string>();
        for (const id of b.span_ids.split(' ')) set.add(id);
        stored.set(Number(b.trace_seq), set);
      }
    }
    // Stored calls of the batch's existing traces, for pairing the two sides of a call (pairing.ts); the trace
    // rows are locked, so no other batch adds to them meanwhile.
    const callTraces = [...new Set(plan.calls.traceId)].filter(
      (id) => !created.has(id) && seqs.has(id),
    );
    const storedCalls = new Map<number, StoredCall<StoredCallRow>[]>();
    if (callTraces.length > 0) {
      const rows = await client.query(
        `SELECT ${STORED_CALL_COLUMNS} FROM tool_calls WHERE trace_seq = ANY($1::bigint[])`,
        arrayParams([callTraces.map((id) => seqs.get(id))]),
      );
      for (const r of rows.rows as Row[]) {
        const seq = Number(r.trace_seq);
        const list = storedCalls.get(seq) ?? [];
        list.push(storedCallOf(r));
        storedCalls.set(seq, list);
      }
    }
    // Stored parts of the batch's logical calls in any trace, their link hashes locked (pg-links.ts).
    const linked = await lockedLinkedCalls(client, links, seqs);
    filtersRead ??= lockFilters();
    const a = this.#stages.rows(plan, {
      storedCalls: (seq) => storedCalls.get(seq) ?? [],
      linkedCalls: () => linked,
      seqOf: (traceId) => seqs.get(traceId) ?? -1,
      storedIds: (seq) => {
        let set = stored.get(seq);
        if (!set) {
          set = new Set();
          stored.set(seq, set);
        }
        return set;
      },
      resourceIds: await this.#ids.resourceIdsOf(client, later, plan.resources, learned),
    });

    const loops = this.#stages.loops.forBatch(a.counted);
    // The stage keeps what it needs of them: their objects need not outlive the waits below.
    a.counted = [];
    const filters = await filtersRead;

    later(sendCopy(client, 'span_blocks', BLOCK_COLUMNS, blockRowsCopy(a.blocks), 'binary'));
    const interned = new Set<string>();
    for (const c of a.calls) for (const v of internedOf(c.call)) if (v !== null) interned.add(v);
    const strings = await this.#ids.stringIdsOf(client, later, interned, learned);
    const encoding: RowEncoding = { key: (v) => v, id: (v) => strings.get(v) as number };
    // Each call's row written into one array, its text appended before the next: no array per call.
    const text = new CopyText(a.calls.length * ROW_BYTES);
    const row = new Array<Cell>(CALL_ROW_LENGTH);
    for (const c of a.calls)
      text.row(callRow(c.seq, c.call, c.paired, c.part, encoding, row) as Cell[]);
    later(sendCopy(client, 'tool_call_rows', CALL_ROW_COLUMNS, text.bytes()));
    // Nothing below reads the calls: they need not live through the loops' reads and the commit.
    a.calls.length = 0;
    if (a.pairedIds.length > 0)
      later(
        client.query(
          'UPDATE tool_call_rows SET paired = 1 WHERE id = ANY($1::bigint[])',
          arrayParams([a.pairedIds]),
        ),
      );
    // Parts of logical calls: few batches have any (process/join.ts).
    for (const j of a.joined)
      later(
        client.query(
          toDollars(JOIN_ROW_SQL),
          joinedRow(j).map((v) => param(v as SqlValue)),
        ),
      );
    for (const x of a.extended)
      later(
        client.query(
          toDollars(EXTEND_ROW_SQL),
          extendedRow(x.id, x.call, encoding).map((v) => param(v as SqlValue)),
        ),
      );
    // The batch's conversation links and model calls in one statement: a batch's few dozen model calls are
    // cheaper as parameters than as a COPY of their own (docs/decisions/0031). model_calls has no unique
    // index, so its insert waits on no other writer and adds nothing to the lock order.
    if (a.conversationPairs.length > 0 || a.modelCalls.length > 0) {
      const m = a.modelCalls;
      later(
        client.query(
          prepared(
            'toolscope_models',
            `WITH models AS (
           INSERT INTO model_calls (trace_seq, start_ns, end_ns, input_tokens, output_tokens)
           SELECT * FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
         )
         INSERT INTO conversation_traces (conversation_id, trace_seq)
         SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING`,
            [
              a.conversationPairs.map((p) => p.conversationId),
              a.conversationPairs.map((p) => p.seq),
              m.map((c) => c.seq),
              m.map((c) => String(c.startNs)),
              m.map((c) => String(c.endNs)),
              m.map((c) => c.inputTokens),
              m.map((c) => c.outputTokens),
            ],
          ),
        ),
      );
    }
    await evaluateLoops(client, later, loops, created, seqs, filters);
    saveTallies(client, later, a.tallies, a.rollups, a.contracts);
    return { inserted: a.inserted, duplicates: a.duplicates, toolCalls: a.toolCalls };
  }
}

/** The batch's traces as locked: each one's row number, those this write made, and the row numbers of the rest. */
type LockedTraces = { seqs: Map<string, number>; created: Set<string>; existing: string[] };

/**
 * Locks the batch's traces in id order, making those that are new (xmax = 0 marks them), sent now and answered
 * later. The answer's rows are read here, so that they are garbage once read and not kept through the write.
 */
function lockTraces(client: pg.PoolClient, plan: WriteBatch): Promise<LockedTraces> {
  const firstNs = new Map<string, bigint>();
  plan.traceIds.forEach((id, i) => {
    const ns = plan.startNs[i] as bigint;
    const seen = firstNs.get(id);
    if (seen === undefined || ns < seen) firstNs.set(id, ns);
  });
  const ids = [...firstNs.keys()].sort();
  const answer = client.query<{ seq: string; trace_id: string; created: boolean }>(
    prepared(
      'toolscope_traces',
      `INSERT INTO traces (trace_id, first_ns)
       SELECT * FROM unnest($1::text[], $2::bigint[]) AS t(trace_id, first_ns) ORDER BY trace_id
       ON CONFLICT (trace_id) DO UPDATE SET first_ns = LEAST(traces.first_ns, excluded.first_ns)
       RETURNING seq, trace_id, (xmax = 0) AS created`,
      [ids, ids.map((id) => String(firstNs.get(id)))],
    ),
  );
  return sent(
    answer.then(({ rows }) => {
      const locked: LockedTraces = { seqs: new Map(), created: new Set(), existing: [] };
      for (const r of rows) {
        locked.seqs.set(r.trace_id, Number(r.seq));
        if (r.created) locked.created.add(r.trace_id);
        else locked.existing.push(r.seq);
      }
      return locked;
    }),
  );
}
