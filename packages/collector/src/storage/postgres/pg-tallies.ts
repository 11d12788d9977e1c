// The shared rows a PostgreSQL batch adds to besides its loop flags (pg-rows.ts): the contract catalog, the
// per-tool detector tables and the rollups. Upserts go in key order (see pg-writer.ts on lock order) and add to
// what other collectors wrote instead of overwriting it; the rollup rows are appended (pg-rollups.ts).
import type pg from 'pg';
import type { Rollup } from '../../aggregation/rollups.js';
import type { Tallies } from '../../aggregation/tallies.js';
import { contractRows } from '../../contracts/catalog-rows.js';
import type { ContractValues } from '../../contracts/contract-span.js';
import {
  CONTRACT_COLUMNS,
  contractConflictSql,
  contractServiceConflictSql,
  contractValuesOf,
} from '../sql/contracts-migration.js';
import { arrayParams, type PgParam, prepared } from './pg-db.js';
import { ROLLUP_INSERTS, rollupArgs } from './pg-rollups.js';
import type { Later } from './pg-transaction.js';

const byKey = <T>(entries: Iterable<[string, T]>) =>
  [...entries].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, v]) => v);
const str = (v: bigint) => v.toString();

/** The batch's contract reports: catalog rows and the services that served them. */
function saveContracts(client: pg.PoolClient, later: Later, reports: ContractValues[]): void {
  if (reports.length === 0) return;
  const { contracts, services } = contractRows(reports);
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
  later(
    client.query(
      `INSERT INTO tool_contracts AS c (${CONTRACT_COLUMNS})
     SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
     ${contractConflictSql('LEAST', 'GREATEST', 'c')}`,
      arrayParams(types.map((_, i) => columns.map((row) => pgValue(row[i] ?? null)))),
    ),
  );
  later(
    client.query(
      `INSERT INTO tool_contract_services AS s (tool, schema_hash, service, first_ns, last_ns)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
     ${contractServiceConflictSql('LEAST', 'GREATEST', 's')}`,
      arrayParams([
        services.map((s) => s.tool),
        services.map((s) => s.hash),
        services.map((s) => s.service),
        services.map((s) => str(s.firstNs)),
        services.map((s) => str(s.lastNs)),
      ]),
    ),
  );
}

const pgValue = (v: string | number | bigint | null) => (typeof v === 'bigint' ? str(v) : v);

/** A statement and its arguments. */
export type Write = { sql: string; args: PgParam[] };

/**
 * Writes as one statement, each but the last a data-modifying WITH: one round trip instead of one each
 * (docs/decisions/0031). Each write's placeholders $1… are its own; they are renumbered after the writes before
 * it. Built once: the same text in every batch, so every collector runs its writes in one order, and each
 * write's rows come in key order, so the lock order pg-writer.ts describes holds.
 */
function oneStatement(writes: readonly string[]): string {
  let offset = 0;
  const parts = writes.map((sql) => {
    const numbers = [...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
    const renumbered = sql.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + offset}`);
    offset += Math.max(...numbers);
    return renumbered;
  });
  const last = parts.pop() as string;
  return `WITH ${parts.map((sql, i) => `w${i} AS (${sql})`).join(',\n')}\n${last}`;
}

const SCHEMAS_SQL = `INSERT INTO tool_schemas AS s (tool, version, schema_hash, first_ns, last_ns, calls, last_trace_id)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[])
  ON CONFLICT (tool, version, schema_hash) DO UPDATE SET first_ns = LEAST(s.first_ns, excluded.first_ns),
    last_trace_id = CASE WHEN excluded.last_ns > s.last_ns THEN excluded.last_trace_id ELSE s.last_trace_id END,
    last_ns = GREATEST(s.last_ns, excluded.last_ns), calls = s.calls + excluded.calls`;
const SHAPES_SQL = `INSERT INTO tool_shapes AS s (tool, shape, first_ns, last_ns, calls, invalid)
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
  ON CONFLICT (tool, shape) DO UPDATE SET first_ns = LEAST(s.first_ns, excluded.first_ns),
    last_ns = GREATEST(s.last_ns, excluded.last_ns), calls = s.calls + excluded.calls,
    invalid = s.invalid + excluded.invalid`;
const SOURCES_SQL = `INSERT INTO tool_sources AS s (tool, source, side, first_ns, last_ns)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
  ON CONFLICT (tool, source, side) DO UPDATE SET first_ns = LEAST(s.first_ns, excluded.first_ns),
    last_ns = GREATEST(s.last_ns, excluded.last_ns)`;
const PATHS_SQL = `INSERT INTO tool_paths AS p (tool, code, path, minute, count, last_trace_id)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[])
  ON CONFLICT (tool, code, path, minute) DO UPDATE SET count = p.count + excluded.count,
    last_trace_id = excluded.last_trace_id`;
/**
 * The batch's detector upserts and its appended rollup rows (pg-rollups.ts), in the order detectorArgs and
 * rollupArgs give their arguments.
 */
const TALLIES_SQL = oneStatement([
  SCHEMAS_SQL,
  SHAPES_SQL,
  SOURCES_SQL,
  PATHS_SQL,
  ...ROLLUP_INSERTS,
]);

/**
 * The batch's additions to the contract catalog, the per-tool detector tables and the rollups: after the
 * contracts, one statement whose text never changes, every detector table written with its rows in key order
 * (empty arrays add nothing). Written without waiting for the answers (`later`): nothing after them needs one.
 */
export function saveTallies(
  client: pg.PoolClient,
  later: Later,
  t: Tallies,
  rollups: Rollup[],
  contracts: ContractValues[],
): void {
  saveContracts(client, later, contracts);
  const statement = tallyStatement(t, rollups);
  if (statement) later(client.query(prepared('toolscope_tallies', statement.sql, statement.args)));
}

/** The one statement of the batch's detector tallies and rollup rows, or null when it has neither. */
export function tallyStatement(t: Tallies, rollups: Rollup[]): Write | null {
  if (t.schemas.size + t.shapes.size + t.sources.size + t.paths.size + rollups.length === 0)
    return null;
  return { sql: TALLIES_SQL, args: [...detectorArgs(t), ...rollupArgs(rollups)] };
}

function detectorArgs(t: Tallies): PgParam[] {
  const schemas = byKey(t.schemas.entries());
  const shapes = byKey(t.shapes.entries());
  const sources = byKey(t.sources.entries());
  const paths = byKey(t.paths.entries());
  return [
    schemas.map((s) => s.tool),
    schemas.map((s) => s.version),
    schemas.map((s) => s.hash),
    schemas.map((s) => str(s.first)),
    schemas.map((s) => str(s.last)),
    schemas.map((s) => s.calls),
    schemas.map((s) => s.traceId),
    shapes.map((s) => s.tool),
    shapes.map((s) => s.shape),
    shapes.map((s) => str(s.first)),
    shapes.map((s) => str(s.last)),
    shapes.map((s) => s.calls),
    shapes.map((s) => s.invalid),
    sources.map((s) => s.tool),
    sources.map((s) => s.source),
    sources.map((s) => s.side),
    sources.map((s) => str(s.first)),
    sources.map((s) => str(s.last)),
    paths.map((p) => p.tool),
    paths.map((p) => p.code),
    paths.map((p) => p.path),
    paths.map((p) => str(p.minute)),
    paths.map((p) => p.count),
    paths.map((p) => p.traceId),
  ];
}
