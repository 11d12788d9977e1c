// The schema step of a call's result size (issue 20: what a result costs the model's context), as SQL both
// backends run: SQLite's migration v8 and PostgreSQL's v4. Null for calls stored before, and for spans that
// carry no result size.
export const OUTPUT_MIGRATION = `
  ALTER TABLE tool_calls ADD COLUMN result_bytes BIGINT;
  ALTER TABLE tool_calls ADD COLUMN result_tokens BIGINT;
`;
