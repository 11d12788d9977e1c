// Calls over time from the rollups (GET /api/timeseries): every step present, errors split by code so a chart
// can stack them, and on request the same per tool, aligned with the points (the tools table's sparklines).
// One grouped query over the minute or hour rollup, whatever the number of calls.
import type { CallSide } from '../../calls/sides.js';
import { rollupSides } from '../call-side.js';
import type { Series } from '../contract.js';
import type { ClientFilter } from '../read-records.js';
import { CLIENT_TABLE, clientWhere } from './client-sql.js';
import { big, NS_PER_HOUR, NS_PER_MINUTE, num, type ReadDb, text } from './db.js';
import { ceilTo, floorTo, sideList } from './tool-stats.js';

/** The most points a series returns; a longer range gets a coarser step. */
export const MAX_POINTS = 1_500;

/**
 * Calls and errors per step over [sinceNs, untilNs), every step present (zeros included). Steps of an hour
 * or more read the hour rollup, shorter ones the minute rollup; the step is at least a minute.
 */
export async function timeseries(
  db: ReadDb,
  sinceNs: bigint,
  untilNs: bigint,
  stepMs: number,
  tool?: string,
  side: CallSide = 'any',
  byTool = false,
  client?: ClientFilter,
): Promise<Series> {
  const rangeMs = Number((untilNs - sinceNs) / 1_000_000n);
  let step = Math.max(60_000, Math.ceil(stepMs / 60_000) * 60_000);
  if (rangeMs / step > MAX_POINTS) step = Math.ceil(rangeMs / MAX_POINTS / 60_000) * 60_000;
  const hourly = step % 3_600_000 === 0;
  const unit = hourly ? NS_PER_HOUR : NS_PER_MINUTE;
  const stepNs = BigInt(step) * 1_000_000n;
  const first = floorTo(sinceNs, stepNs);
  const count = Number((untilNs - first + stepNs - 1n) / stepNs);
  const points: Series['points'] = Array.from({ length: count }, (_, i) => ({
    startNs: first + BigInt(i) * stepNs,
    calls: 0,
    errors: 0,
    errorsByCode: {},
  }));
  const perTool = new Map<string, { calls: number[]; errors: number[] }>();
  const toolTable = hourly ? 'tool_hours' : 'tool_minutes';
  // One client's calls are in the client rollups beside the tool rollups, keyed the same with its name.
  const table = client ? CLIENT_TABLE[toolTable] : toolTable;
  const byClient = clientWhere(client);
  const col = hourly ? 'hour' : 'minute';
  const sides = rollupSides(side);
  const subtracted = new Set<string>(sides.subtract);
  const rows = await db.all(
    `SELECT ${col} AS at, side, code${byTool ? ', tool' : ''}, SUM(calls) AS calls, SUM(errors) AS errors
       FROM ${table}
      WHERE ${col} >= ? AND ${col} < ? AND side IN (${sideList([...sides.add, ...sides.subtract])})
        ${tool ? ' AND tool = ?' : ''}${byClient.rollups}
      GROUP BY ${col}, side, code${byTool ? ', tool' : ''}`,
    [first / unit, ceilTo(untilNs, unit) / unit, ...(tool ? [tool] : []), ...byClient.params],
  );
  for (const r of rows) {
    const i = Number((big(r.at) * unit - first) / stepNs);
    const p = points[i];
    if (!p) continue;
    // Paired client and proxy rows are the calls a server row already counts (call-side.ts).
    const sign = subtracted.has(text(r.side)) ? -1 : 1;
    const calls = sign * num(r.calls);
    const errors = sign * num(r.errors);
    p.calls += calls;
    p.errors += errors;
    const code = text(r.code);
    if (code !== '' && errors !== 0) p.errorsByCode[code] = (p.errorsByCode[code] ?? 0) + errors;
    if (!byTool) continue;
    const name = text(r.tool);
    let series = perTool.get(name);
    if (!series) {
      series = { calls: new Array(count).fill(0), errors: new Array(count).fill(0) };
      perTool.set(name, series);
    }
    series.calls[i] = (series.calls[i] ?? 0) + calls;
    series.errors[i] = (series.errors[i] ?? 0) + errors;
  }
  // A code whose paired rows cancel its client rows leaves a zero: not a code of that step.
  for (const p of points)
    for (const [code, n] of Object.entries(p.errorsByCode))
      if (n === 0) delete p.errorsByCode[code];
  const series: Series = { stepMs: step, points };
  if (byTool)
    series.tools = [...perTool]
      .map(([name, s]) => ({ name, ...s }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  return series;
}
