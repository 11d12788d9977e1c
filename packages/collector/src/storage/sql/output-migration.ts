// The schema step of result sizes (what a result costs the model's context), as SQL both backends
// run: SQLite's migration v8 and PostgreSQL's v4. A call's size is null when it was stored before, or when its
// span carries none; the rollups gain the size histograms and maxima of their calls (aggregation/result-sizes.ts), empty
// for what they counted before.
const ROLLUP_SIZE_COLUMNS = (table: string) => `
  ALTER TABLE ${table} ADD COLUMN bytes_hist TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE ${table} ADD COLUMN tokens_hist TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE ${table} ADD COLUMN max_bytes BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE ${table} ADD COLUMN max_tokens BIGINT NOT NULL DEFAULT 0;
`;

export const OUTPUT_MIGRATION = `
  ALTER TABLE tool_calls ADD COLUMN result_bytes BIGINT;
  ALTER TABLE tool_calls ADD COLUMN result_tokens BIGINT;
  ${ROLLUP_SIZE_COLUMNS('tool_minutes')}
  ${ROLLUP_SIZE_COLUMNS('tool_hours')}
`;

/** The rollups' size columns, in the order the backends' upserts bind them. */
export const ROLLUP_SIZES = 'bytes_hist, tokens_hist, max_bytes, max_tokens';
