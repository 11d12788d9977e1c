// The schema step of traffic by MCP client, as SQL both backends run: SQLite's migration v14 and PostgreSQL's v10.
// A call keeps its client's version beside its name, and the rollups gain a twin per client (aggregation/
// rollups.ts), filled here from the calls already stored so a tool's breakdown by client covers them too. Their
// version is unknown (''): it was not kept. BIGINT is an INTEGER column to SQLite, so one text serves both but
// for the JSON aggregate and SQLite's WITHOUT ROWID.
import { LOG_BUCKET_BASE } from '../../aggregation/log-buckets.js';
import { NS_PER_HOUR, NS_PER_MINUTE } from '../../aggregation/rollups.js';
import { callView } from '../call-row.js';
import { CODE_KEY_SQL } from './code-sql.js';

/** What differs between the backends. */
export type ClientsDialect = {
  /** How the view reads a keyed column back (call-row.ts callView). */
  key: (column: string) => string;
  /** Appended to each CREATE TABLE (SQLite: WITHOUT ROWID, as its other rollups). */
  tableSuffix: string;
  /** SQL of a JSON object of `key` → `value` over a group's rows, as text. */
  jsonObject: (key: string, value: string) => string;
};

const clientTable = (table: string, column: string, suffix: string) => `
  CREATE TABLE ${table} (
    ${column} BIGINT NOT NULL,
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    code TEXT NOT NULL,
    side TEXT NOT NULL,
    client_name TEXT NOT NULL,
    client_version TEXT NOT NULL,
    calls BIGINT NOT NULL,
    errors BIGINT NOT NULL,
    hist TEXT NOT NULL,
    bytes_hist TEXT NOT NULL DEFAULT '{}',
    tokens_hist TEXT NOT NULL DEFAULT '{}',
    max_bytes BIGINT NOT NULL DEFAULT 0,
    max_tokens BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (${column}, tool, version, code, side, client_name, client_version)
  ) ${suffix};`;

/** aggregation/log-buckets.ts's logBucketOf in SQL, over a value in units. */
const logBucket = (units: string) =>
  `CASE WHEN ${units} <= 1 THEN 0 ELSE CAST(floor(ln(${units}) / CAST(${Math.log(LOG_BUCKET_BASE)} AS DOUBLE PRECISION)) AS INTEGER) END`;
const asDouble = (column: string) => `CAST(${column} AS DOUBLE PRECISION)`;

/**
 * Every stored call under the rollup sides it counts in (process/rows.ts): its own, and `paired` or `proxied`
 * too once another row of the call pairs it. Its time in `unit`s and its code by the one rule.
 */
const counted = (unit: bigint) => {
  const columns = `start_ns, tool, version, code, error_type, is_error, duration_ms, result_bytes, result_tokens,
    client_name`;
  return `SELECT start_ns / ${unit} AS at, tool, COALESCE(version, '') AS version, ${CODE_KEY_SQL} AS code, side,
      COALESCE(client_name, '') AS client_name, is_error, duration_ms, result_bytes, result_tokens
    FROM (SELECT ${columns}, CASE WHEN kind = 3 THEN 'client' ELSE 'server' END AS side FROM tool_calls
      UNION ALL
      SELECT ${columns}, CASE WHEN kind = 3 THEN 'paired' ELSE 'proxied' END FROM tool_calls WHERE paired = 1
    ) AS c`;
};

const KEY = 'at, tool, version, code, side, client_name';

/** One client rollup table filled from the stored calls: counts and latency, then each size histogram. */
function fill(table: string, column: string, unit: bigint, d: ClientsDialect): string {
  const sizes = (field: 'bytes' | 'tokens') => {
    const value = `result_${field}`;
    return `
  UPDATE ${table} SET ${field}_hist = s.h FROM (
    SELECT ${KEY}, ${d.jsonObject('b', 'n')} AS h FROM (
      SELECT ${KEY}, ${logBucket(asDouble(value))} AS b, COUNT(*) AS n FROM (${counted(unit)}) AS r
       WHERE ${value} IS NOT NULL GROUP BY ${KEY}, b
    ) AS g GROUP BY ${KEY}
  ) AS s
  WHERE ${table}.${column} = s.at AND ${table}.tool = s.tool AND ${table}.version = s.version
    AND ${table}.code = s.code AND ${table}.side = s.side AND ${table}.client_name = s.client_name
    AND ${table}.client_version = '';`;
  };
  return `
  INSERT INTO ${table} (${column}, tool, version, code, side, client_name, client_version, calls, errors, hist,
      max_bytes, max_tokens)
    SELECT ${KEY}, '', SUM(n), SUM(e), ${d.jsonObject('b', 'n')}, MAX(mb), MAX(mt) FROM (
      SELECT ${KEY}, ${logBucket('duration_ms * 1000')} AS b, COUNT(*) AS n, SUM(is_error) AS e,
          MAX(COALESCE(result_bytes, 0)) AS mb, MAX(COALESCE(result_tokens, 0)) AS mt
        FROM (${counted(unit)}) AS r GROUP BY ${KEY}, b
    ) AS g GROUP BY ${KEY};
  ${sizes('bytes')}
  ${sizes('tokens')}`;
}

/** The step: the client's version on each call row (and in the view), and the client rollups, filled. */
export function clientsMigration(d: ClientsDialect): string {
  return `
  ALTER TABLE tool_call_rows ADD COLUMN client_version TEXT;
  DROP VIEW tool_calls;
  ${callView(d.key, 3)};
  ${clientTable('tool_client_minutes', 'minute', d.tableSuffix)}
  ${clientTable('tool_client_hours', 'hour', d.tableSuffix)}
  ${fill('tool_client_minutes', 'minute', NS_PER_MINUTE, d)}
  ${fill('tool_client_hours', 'hour', NS_PER_HOUR, d)}`;
}
