// The causes of failures per tool over a window (docs/contracts.md): the most frequent exception types, read from the
// partial index of calls that threw (sql/contracts-migration.ts), each call counted once (call-side.ts).

import type { CallSide } from '../../calls/sides.js';
import { sideWhere } from '../call-side.js';
import type { ClientFilter, ExceptionCount } from '../read-records.js';
import { clientWhere } from './client-sql.js';
import { num, type ReadDb, type SqlValue, text } from './db.js';

/** Up to `top` exception types per tool (of one MCP client's calls, with `client`), most frequent first. */
export async function exceptionTypes(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  tool: string | undefined,
  side: CallSide = 'any',
  client?: ClientFilter,
  top = 5,
): Promise<ExceptionCount[]> {
  const params: SqlValue[] = [sinceNs, untilNs];
  let where = '';
  if (tool !== undefined) {
    where += " AND tool || '' = ?";
    params.push(tool);
  }
  const filter = clientWhere(client);
  where += filter.calls;
  params.push(...filter.params);
  // `tool || ''`: an expression no index covers, so the planner reads the partial index of calls that threw
  // instead of every call of the tool in the window (bench:query: the tool page took 142 ms with `tool = ?`
  // on SQLite, which chose the (tool, start_ns) index).
  const rows = await db.all(
    `SELECT tool, exception_type, COUNT(*) AS n FROM tool_calls
      WHERE exception_type IS NOT NULL AND start_ns >= ? AND start_ns < ? AND ${sideWhere(side)}${where}
      GROUP BY tool, exception_type ORDER BY n DESC LIMIT 2000`,
    params,
  );
  const perTool = new Map<string, number>();
  const out: ExceptionCount[] = [];
  for (const r of rows) {
    const tool = text(r.tool);
    const n = perTool.get(tool) ?? 0;
    if (n >= top) continue;
    perTool.set(tool, n + 1);
    out.push({ tool, type: text(r.exception_type), count: num(r.n) });
  }
  return out;
}
