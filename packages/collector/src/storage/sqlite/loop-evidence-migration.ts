// SQLite v12: a call's result hash (a key, stored as 8 bytes like the others) and the model calls of each trace,
// what loop detection needs to tell progress from a loop and to say what a loop cost; and whether a row is the
// proxy's view of a call (calls/pairing.ts counts such a call once). Adding a column rewrites
// nothing; the view is made again with it.
import { callView } from '../call-row.js';
import { key } from './call-layout.js';

export const LOOP_EVIDENCE_MIGRATION = `
  ALTER TABLE tool_call_rows ADD COLUMN output_hash;
  ALTER TABLE tool_call_rows ADD COLUMN proxy INTEGER NOT NULL DEFAULT 0;
  DROP VIEW tool_calls;
  ${callView(key, 2)};
  CREATE TABLE model_calls (
    trace_seq INTEGER NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER
  );
  CREATE INDEX model_calls_by_trace ON model_calls(trace_seq, start_ns);
`;
