// The shared rows a PostgreSQL batch adds to: loop flags of the scopes it must re-evaluate, the per-tool
// detector tables, and the rollups. Upserts go in key order (see pg-writer.ts on lock order) and add to what
// other collectors wrote instead of overwriting it; histograms are merged by toolscope_hist_merge.

import type pg from 'pg';
import type { BatchTouch } from '../batch-touch.js';
import type {
  BatchLoopDetection,
  CallSequence,
  LoopScopeRef,
  SequenceContext,
} from '../contract.js';
import { contractRows, contractValuesOf } from '../contract-rows.js';
import { serialize } from '../histogram.js';
import type { Rollup } from '../rollups.js';
import {
  CONTRACT_COLUMNS,
  contractConflictSql,
  contractServiceConflictSql,
} from '../sql/contracts-migration.js';
import type { Row, SqlValue } from '../sql/db.js';
import { ROLLUP_SIZES } from '../sql/output-migration.js';
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

const byKey = <T>(entries: Iterable<[string, T]>) =>
  [...entries].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, v]) => v);
const str = (v: bigint) => v.toString();

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

/** The batch's contract reports: catalog rows and the services that served them. */
async function saveContracts(client: pg.PoolClient, t: BatchTouch): Promise<void> {
  if (t.contracts.length === 0) return;
  const { contracts, services } = contractRows(t.contracts);
  const columns = contracts.map(contractValuesOf);
  const types = [
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'smallint',
    'text',
    'text',
    'bigint',
    'bigint',
    'text',
    'bigint',
    'bigint',
  ];
  await client.query(
    `INSERT INTO tool_contracts AS c (${CONTRACT_COLUMNS})
     SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
     ${contractConflictSql('LEAST', 'GREATEST', 'c')}`,
    types.map((_, i) => columns.map((row) => pgValue(row[i] ?? null))),
  );
  await client.query(
    `INSERT INTO tool_contract_services AS s (tool, schema_hash, service, first_ns, last_ns)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
     ${contractServiceConflictSql('LEAST', 'GREATEST', 's')}`,
    [
      services.map((s) => s.tool),
      services.map((s) => s.hash),
      services.map((s) => s.service),
      services.map((s) => str(s.firstNs)),
      services.map((s) => str(s.lastNs)),
    ],
  );
}

const pgValue = (v: string | number | bigint | null) => (typeof v === 'bigint' ? str(v) : v);

export async function saveDetectorRows(client: pg.PoolClient, t: BatchTouch): Promise<void> {
  await saveContracts(client, t);
  const schemas = byKey(t.schemas.entries());
  if (schemas.length > 0)
    await client.query(
      `INSERT INTO tool_schemas AS s (tool, version, schema_hash, first_ns, last_ns, calls, last_trace_id)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[])
       ON CONFLICT (tool, version, schema_hash) DO UPDATE SET first_ns = LEAST(s.first_ns, excluded.first_ns),
         last_trace_id = CASE WHEN excluded.last_ns > s.last_ns THEN excluded.last_trace_id ELSE s.last_trace_id END,
         last_ns = GREATEST(s.last_ns, excluded.last_ns), calls = s.calls + excluded.calls`,
      [
        schemas.map((s) => s.tool),
        schemas.map((s) => s.version),
        schemas.map((s) => s.hash),
        schemas.map((s) => str(s.first)),
        schemas.map((s) => str(s.last)),
        schemas.map((s) => s.calls),
        schemas.map((s) => s.traceId),
      ],
    );
  const shapes = byKey(t.shapes.entries());
  if (shapes.length > 0)
    await client.query(
      `INSERT INTO tool_shapes AS s (tool, shape, first_ns, last_ns, calls, invalid)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
       ON CONFLICT (tool, shape) DO UPDATE SET first_ns = LEAST(s.first_ns, excluded.first_ns),
         last_ns = GREATEST(s.last_ns, excluded.last_ns), calls = s.calls + excluded.calls,
         invalid = s.invalid + excluded.invalid`,
      [
        shapes.map((s) => s.tool),
        shapes.map((s) => s.shape),
        shapes.map((s) => str(s.first)),
        shapes.map((s) => str(s.last)),
        shapes.map((s) => s.calls),
        shapes.map((s) => s.invalid),
      ],
    );
  const sources = byKey(t.sources.entries());
  if (sources.length > 0)
    await client.query(
      `INSERT INTO tool_sources AS s (tool, source, side, first_ns, last_ns)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
       ON CONFLICT (tool, source, side) DO UPDATE SET first_ns = LEAST(s.first_ns, excluded.first_ns),
         last_ns = GREATEST(s.last_ns, excluded.last_ns)`,
      [
        sources.map((s) => s.tool),
        sources.map((s) => s.source),
        sources.map((s) => s.side),
        sources.map((s) => str(s.first)),
        sources.map((s) => str(s.last)),
      ],
    );
  const paths = byKey(t.paths.entries());
  if (paths.length > 0)
    await client.query(
      `INSERT INTO tool_paths AS p (tool, code, path, minute, count, last_trace_id)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[])
       ON CONFLICT (tool, code, path, minute) DO UPDATE SET count = p.count + excluded.count,
         last_trace_id = excluded.last_trace_id`,
      [
        paths.map((p) => p.tool),
        paths.map((p) => p.code),
        paths.map((p) => p.path),
        paths.map((p) => str(p.minute)),
        paths.map((p) => p.count),
        paths.map((p) => p.traceId),
      ],
    );
}

export async function saveRollups(client: pg.PoolClient, rollups: Rollup[]): Promise<void> {
  for (const [table, column] of [
    ['tool_minutes', 'minute'],
    ['tool_hours', 'hour'],
  ] as const) {
    const rows = byKey(
      rollups
        .filter((r) => r.table === table)
        .map((r): [string, Rollup] => [
          `${String(r.bucket).padStart(20, '0')}\u0000${r.tool}\u0000${r.version}\u0000${r.code}\u0000${r.side}`,
          r,
        ]),
    );
    if (rows.length === 0) continue;
    await client.query(
      `INSERT INTO ${table} AS r (${column}, tool, version, code, side, calls, errors, hist, ${ROLLUP_SIZES})
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
         $8::text[], $9::text[], $10::text[], $11::bigint[], $12::bigint[])
       ON CONFLICT (${column}, tool, version, code, side) DO UPDATE SET calls = r.calls + excluded.calls,
         errors = r.errors + excluded.errors, hist = toolscope_hist_merge(r.hist, excluded.hist),
         bytes_hist = toolscope_hist_merge(r.bytes_hist, excluded.bytes_hist),
         tokens_hist = toolscope_hist_merge(r.tokens_hist, excluded.tokens_hist),
         max_bytes = GREATEST(r.max_bytes, excluded.max_bytes),
         max_tokens = GREATEST(r.max_tokens, excluded.max_tokens)`,
      [
        rows.map((r) => str(r.bucket)),
        rows.map((r) => r.tool),
        rows.map((r) => r.version),
        rows.map((r) => r.code),
        rows.map((r) => r.side),
        rows.map((r) => r.calls),
        rows.map((r) => r.errors),
        rows.map((r) => serialize(r.hist)),
        rows.map((r) => serialize(r.sizes.bytes)),
        rows.map((r) => serialize(r.sizes.tokens)),
        rows.map((r) => r.sizes.maxBytes),
        rows.map((r) => r.sizes.maxTokens),
      ],
    );
  }
}
