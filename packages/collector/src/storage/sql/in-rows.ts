// Which database a statement is written for, where the two must say the same thing differently, and the one
// such thing the read paths share: a column matching any row of a subquery.

export type SqlDialect = 'sqlite' | 'postgres';

/**
 * `column` matching any row `subquery` gives. PostgreSQL's planner, before its first ANALYZE of a new database
 * (autovacuum's, up to a minute in), joined `IN (subquery)` by a scan of every call row: 57 ms a read at
 * 150,000 calls, against 0.7 ms for `= ANY(ARRAY(subquery))`, which it reads through the column's index whatever
 * its statistics say (docs/decisions/0068-pg-server-work-per-span.md). SQLite has no arrays and plans IN well.
 */
export function inRows(dialect: SqlDialect, column: string, subquery: string): string {
  return dialect === 'postgres'
    ? `${column} = ANY(ARRAY(${subquery}))`
    : `${column} IN (${subquery})`;
}
