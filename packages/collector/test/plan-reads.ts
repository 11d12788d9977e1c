// What a PostgreSQL plan read, from EXPLAIN (ANALYZE, FORMAT JSON): the plan tests' measure of whether a query
// reads its own rows or walks a table (call-search-plan.test.ts, scope-read-plan.test.ts).
import type pg from 'pg';
import { toDollars } from '../src/storage/postgres/pg-db.js';

export type PlanNode = {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
};

/** Rows of `table` the plan read, kept or filtered out, in every loop. */
export function rowsRead(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, p) => sum + rowsRead(p, table), 0);
}

/** The plan of `sql` (`?` placeholders) as it ran with `values`. */
export async function analyzedPlan(
  client: pg.Client,
  sql: string,
  values: unknown[],
): Promise<PlanNode> {
  const explained = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${toDollars(sql)}`,
    values,
  );
  const plan = explained.rows[0]?.['QUERY PLAN'][0]?.Plan;
  if (!plan) throw new Error('EXPLAIN gave no plan');
  return plan;
}
