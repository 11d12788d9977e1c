// The loop flags of the scopes a PostgreSQL batch must re-evaluate, and the conversations' key filters it
// changed; upserts go in key order (see pg-writer.ts on lock order). The batch's other shared rows, the per-tool
// detector tables and the rollups, are pg-tallies.ts.
import type pg from 'pg';
import type {
  BatchLoopDetection,
  CallSequence,
  LoopScopeRef,
  SequenceContext,
} from '../contract.js';
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
import { param, toDollars } from './pg-db.js';

type Rows = (sql: string, args: SqlValue[]) => Promise<Row[]>;

/** What a scope's flags need beyond its calls: model calls from its oldest call read on, kept flags. */
async function readContext(
  rows: Rows,
  check: LoopScopeRef,
  seq: number,
  sequence: CallSequence,
): Promise<SequenceContext> {
  const models = await rows(scopeModelCallsSql(check.scope), [
    check.scope === 'trace' ? seq : check.key,
    modelCallsFrom(sequence),
  ]);
  const kept =
    check.keep.length === 0
      ? []
      : await rows(keptFlagsSql(check.keep.length), [check.scope, check.key, ...check.keep]);
  return contextOf(models, kept);
}

/**
 * The loop scopes the detection stage asks for, read and their flags replaced; the conversations' key filters
 * come locked with the batch's conversation rows (pg-writer.ts) and the changed ones are written back.
 */
export async function evaluateLoops(
  client: pg.PoolClient,
  batch: BatchLoopDetection,
  created: Set<string>,
  seqs: Map<string, number>,
  filters: ReadonlyMap<string, unknown>,
): Promise<void> {
  const rows: Rows = async (sql, args) =>
    (await client.query(toDollars(sql), args.map(param))).rows;
  for (const check of batch.checks((traceId) => !created.has(traceId), filters)) {
    const seq = seqs.get(check.key) ?? -1;
    const sequence = sequenceOf(
      await rows(scopeCallsSql(check.scope, check.tools?.length ?? 0), scopeCallsArgs(check, seq)),
    );
    let flags = batch.evaluate(check, sequence);
    if (flags === 'needs-context')
      flags = batch.evaluate(check, sequence, await readContext(rows, check, seq, sequence));
    if (flags === 'needs-context') throw new Error('the detection stage asked twice for context');
    await client.query(
      toDollars(deleteScopeFlagsSql(check)),
      deleteScopeFlagsArgs(check, sequence.fromNs).map(param),
    );
    for (const f of flags)
      await client.query(toDollars(INSERT_FLAG_SQL), flagRowOf(check, f).map(param));
  }
  const changed = batch.changedFilters();
  if (changed.size > 0) {
    // The filters as one bytea, cut apart by the server: a Buffer parameter goes in binary, while a bytea[] is
    // sent as text, each element hex-encoded (twice the bytes, and a hex string per conversation to collect).
    const filters = [...changed.values()];
    const starts: number[] = [];
    let at = 1; // substring() counts from 1
    for (const f of filters) {
      starts.push(at);
      at += f.length;
    }
    await client.query(
      `UPDATE conversations SET keys = substring($2::bytea FROM d.start FOR d.length)
        FROM unnest($1::text[], $3::int[], $4::int[]) AS d(id, start, length)
        WHERE conversation_id = d.id`,
      [[...changed.keys()], Buffer.concat(filters), starts, filters.map((f) => f.length)],
    );
  }
}
