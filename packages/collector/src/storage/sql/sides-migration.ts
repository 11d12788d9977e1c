// The schema step that brings call sources and sides (call-side.ts) to a database written before them, as
// SQL both backends run: SQLite's migration v6 and PostgreSQL's v2 (each wraps it with its own DDL for the
// rollup tables' new key).

/** Rows stored before: our spans are recognised by the contract's columns, the rest were GenAI semconv
 * spans (the only other dialect read then). Their client rows were never counted, so they stay out of the
 * statistics as if paired. */
export const BACKFILL_CALLS = `
  UPDATE tool_calls SET
    source = CASE WHEN schema_hash IS NOT NULL OR input_hash IS NOT NULL OR code IS NOT NULL
                    OR effect IS NOT NULL OR attempt != 1 THEN 'toolscope' ELSE 'gen_ai' END,
    paired = CASE WHEN kind = 3 THEN 1 ELSE 0 END;
`;

export const FILL_SOURCES = `
  INSERT INTO tool_sources (tool, source, side, first_ns, last_ns)
  SELECT tool, source, CASE WHEN kind = 3 THEN 'client' ELSE 'server' END, MIN(start_ns), MAX(start_ns)
    FROM tool_calls GROUP BY tool, source, CASE WHEN kind = 3 THEN 'client' ELSE 'server' END;
`;
