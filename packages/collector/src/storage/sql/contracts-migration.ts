// The schema step of the contract catalog and the cause of a failure (docs/contracts.md), as SQL both backends run:
// SQLite's migration v7 and PostgreSQL's v3. BIGINT is an INTEGER column to SQLite, so one text serves both.
// The catalog is kept through retention: one small row per (tool, schema hash), and a tool's contract is what
// its callers still depend on long after the calls that carried it were deleted.
import type { ContractRow } from '../../contracts/catalog-rows.js';

export const CONTRACTS_MIGRATION = `
  ALTER TABLE tool_calls ADD COLUMN exception_type TEXT;
  ALTER TABLE tool_calls ADD COLUMN exception_message TEXT;
  ALTER TABLE tool_calls ADD COLUMN client_name TEXT;
  -- Rows whose span did not say whether an effect happened were stored as 0 ("no"); no dialect but ours sets
  -- it, and our client adapter cannot know: they become unknown (calls/tool-call.ts PARTIAL_EFFECT_UNKNOWN).
  -- Only calls that threw are in it: the report's top exception types read a window of them, cheaply.
  CREATE INDEX tool_calls_by_exception ON tool_calls (start_ns) WHERE exception_type IS NOT NULL;
  UPDATE tool_calls SET partial_effect = -1
   WHERE partial_effect = 0 AND (kind = 3 OR source IS NULL OR source <> 'toolscope');
  CREATE TABLE tool_contracts (
    tool TEXT NOT NULL,
    schema_hash TEXT NOT NULL,
    version TEXT NOT NULL,
    description TEXT,
    input_schema TEXT,
    output_schema TEXT,
    annotations TEXT,
    deprecated SMALLINT NOT NULL,
    replaced_by TEXT,
    sunset TEXT,
    schema_bytes BIGINT NOT NULL,
    schema_tokens BIGINT NOT NULL,
    origin TEXT NOT NULL,
    first_ns BIGINT NOT NULL,
    last_ns BIGINT NOT NULL,
    PRIMARY KEY (tool, schema_hash)
  );
  CREATE TABLE toolscope_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  CREATE TABLE tool_contract_services (
    tool TEXT NOT NULL,
    schema_hash TEXT NOT NULL,
    service TEXT NOT NULL,
    first_ns BIGINT NOT NULL,
    last_ns BIGINT NOT NULL,
    PRIMARY KEY (tool, schema_hash, service)
  );
`;

/** Columns of a tool_contracts upsert, in the order both writers send them. */
export const CONTRACT_COLUMNS = `tool, schema_hash, version, description, input_schema, output_schema, annotations,
  deprecated, replaced_by, sunset, schema_bytes, schema_tokens, origin, first_ns, last_ns`;

/**
 * What a later report of a known (tool, hash) changes, with the backend's own min/max: the time span, and the
 * fields of the newest report (a deprecation can be added without changing the schemas). A report whose entry
 * was cut does not erase schemas an earlier one kept.
 */
export function contractConflictSql(min: string, max: string, table: string): string {
  const newer = `excluded.last_ns >= ${table}.last_ns`;
  return `ON CONFLICT (tool, schema_hash) DO UPDATE SET
    first_ns = ${min}(${table}.first_ns, excluded.first_ns),
    last_ns = ${max}(${table}.last_ns, excluded.last_ns),
    description = COALESCE(excluded.description, ${table}.description),
    input_schema = COALESCE(excluded.input_schema, ${table}.input_schema),
    output_schema = COALESCE(excluded.output_schema, ${table}.output_schema),
    annotations = COALESCE(excluded.annotations, ${table}.annotations),
    deprecated = CASE WHEN ${newer} THEN excluded.deprecated ELSE ${table}.deprecated END,
    replaced_by = CASE WHEN ${newer} THEN excluded.replaced_by ELSE ${table}.replaced_by END,
    sunset = CASE WHEN ${newer} THEN excluded.sunset ELSE ${table}.sunset END`;
}

export function contractServiceConflictSql(min: string, max: string, table: string): string {
  return `ON CONFLICT (tool, schema_hash, service) DO UPDATE SET
    first_ns = ${min}(${table}.first_ns, excluded.first_ns),
    last_ns = ${max}(${table}.last_ns, excluded.last_ns)`;
}

/** A row's values in the order of CONTRACT_COLUMNS. */
export function contractValuesOf(c: ContractRow): (string | number | bigint | null)[] {
  return [
    c.tool,
    c.hash,
    c.version,
    c.description,
    c.inputSchema,
    c.outputSchema,
    c.annotations,
    c.deprecated,
    c.replacedBy,
    c.sunset,
    c.schemaBytes,
    c.schemaTokens,
    c.origin,
    c.firstNs,
    c.lastNs,
  ];
}
