// The detection stage's steps of a PostgreSQL batch (loop-port.ts): the scopes it re-reads, their flags replaced,
// and the conversations' key filters it changed; upserts go in key order (see pg-writer.ts on lock order). The
// batch's other shared rows, the per-tool detector tables and the rollups, are pg-tallies.ts.
import type pg from 'pg';
import type { BatchLoopDetection, LoopScopeRef, LoopStep, SequenceContext } from '../contract.js';
import type { Row, SqlValue } from '../sql/db.js';
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
  sequenceOf,
} from '../sql/scope-sql.js';
import { param, prepared, toDollars } from './pg-db.js';
import type { Later } from './pg-transaction.js';

type Rows = (sql: string, args: SqlValue[]) => Promise<Row[]>;

/** What a scope's flags need beyond its calls: model calls from its oldest call read on, kept flags. */
async function readContext(
  rows: Rows,
  check: LoopScopeRef,
  seq: number,
  from: bigint,
): Promise<SequenceContext> {
  const models = await rows(scopeModelCallsSql(check.scope, 'postgres'), [
    check.scope === 'trace' ? seq : check.key,
    from,
  ]);
  const kept =
    check.keep.length === 0
      ? []
      : await rows(keptFlagsSql(check.keep.length), [check.scope, check.key, ...check.keep]);
  return contextOf(models, kept);
}

/**
 * The detection stage's loop work for a batch, step by step: its scopes read and their flags replaced; the
 * conversations' key filters come locked with the batch's conversation rows (pg-writer.ts) and the changed
 * ones are written back.
 */
export async function evaluateLoops(
  client: pg.PoolClient,
  later: Later,
  batch: BatchLoopDetection,
  created: Set<string>,
  seqs: Map<string, number>,
  filters: ReadonlyMap<string, unknown>,
): Promise<void> {
  const rows: Rows = async (sql, args) =>
    (await client.query(toDollars(sql), args.map(param))).rows;
  for (const step of batch.steps((traceId) => !created.has(traceId), filters))
    await take(client, later, rows, step, seqs);
}

/**
 * One step of the detection stage's loop work, answered or made in the batch's transaction: a read is awaited,
 * a write goes to `later` (nothing after it in the batch needs its answer, and it runs before whatever follows).
 */
async function take(
  client: pg.PoolClient,
  later: Later,
  rows: Rows,
  step: LoopStep,
  seqs: Map<string, number>,
): Promise<void> {
  const seq = step.step === 'filters' ? -1 : (seqs.get(step.check.key) ?? -1);
  switch (step.step) {
    case 'calls':
      step.answer = sequenceOf(
        await rows(
          scopeCallsSql(step.check.scope, step.check.tools?.length ?? 0, 'postgres'),
          scopeCallsArgs(step.check, seq),
        ),
      );
      return;
    case 'context':
      step.answer = await readContext(rows, step.check, seq, modelCallsFrom(step.sequence));
      return;
    case 'flags':
      later(
        client.query(
          toDollars(deleteScopeFlagsSql(step.check)),
          deleteScopeFlagsArgs(step.check, step.fromNs).map(param),
        ),
      );
      for (const f of step.flags)
        later(client.query(toDollars(INSERT_FLAG_SQL), flagRowOf(step.check, f).map(param)));
      return;
    case 'filters': {
      // The filters as one bytea, cut apart by the server: a Buffer parameter goes in binary, while a bytea[]
      // is sent as text, each element hex-encoded (twice the bytes, and a hex string per conversation).
      const filters = [...step.filters.values()];
      const starts: number[] = [];
      let at = 1; // substring() counts from 1
      for (const f of filters) {
        starts.push(at);
        at += f.length;
      }
      later(
        client.query(
          prepared(
            'toolscope_conversation_keys',
            `UPDATE conversations SET keys = substring($2::bytea FROM d.start FOR d.length)
            FROM unnest($1::text[], $3::int[], $4::int[]) AS d(id, start, length)
            WHERE conversation_id = d.id`,
            [
              [...step.filters.keys()],
              Buffer.concat(filters),
              starts,
              filters.map((f) => f.length),
            ],
          ),
        ),
      );
      return;
    }
  }
}
