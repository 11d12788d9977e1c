// The schema step of one logical call (decision 0046), as SQL both backends run: SQLite's migration v15 and
// PostgreSQL's v11. A call row keeps its logical facts (legs, input wait, a task's polls, the parts' links: JSON,
// calls/logical-call.ts; null for the common call) and how it counts (`part`, storage/batch-rows.ts CALL_PART: 0
// for every row stored before, which were whole calls). Adding columns rewrites nothing; the view is made again.
import { callView } from '../call-row.js';

/** The step, with `key` reading a keyed column back as text (call-row.ts callView). */
export function logicalMigration(key: (column: string) => string): string {
  return `
  ALTER TABLE tool_call_rows ADD COLUMN logical TEXT;
  ALTER TABLE tool_call_rows ADD COLUMN part SMALLINT NOT NULL DEFAULT 0;
  DROP VIEW tool_calls;
  ${callView(key, 4)};`;
}
