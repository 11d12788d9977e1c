// Where in a window one MCP client's calls can be, read from its hourly rollups: a page of a client's calls
// (call-page.ts) reads only those hours instead of walking every call of the window newest first, which for a
// client with few calls or none read the whole range (224 ms on SQLite at a million calls, docs/benchmarks.md).
//
// Every counted call is in a `tool_client_hours` row of its hour, written in the same transaction as the call
// (process/rows.ts accumulates each call, a logical call at the start it is stored with), so the hours read
// here hold all of the client's calls. Retention deletes the hours before its cutoff at once but the traces
// before it a step at a time: a call older than the oldest hour left is read the plain way, not missed.
import { NS_PER_HOUR } from '../../aggregation/rollups.js';
import type { ClientFilter } from '../read-records.js';
import { CLIENT_TABLE, clientWhere } from './client-sql.js';
import { big, type ReadDb } from './db.js';

/** A part of a window, [fromNs, untilNs). */
export type TimeRange = { fromNs: bigint; untilNs: bigint };

/**
 * Most ranges a page reads one after the other: a client whose calls are spread over more hours has its oldest
 * ones read as one range (more calls of other clients are walked there, none of its own is missed).
 */
export const MAX_RANGES = 48;

/**
 * The parts of [sinceNs, untilNs) that can hold `client`'s calls, newest first and disjoint: its hours with
 * rollup rows, adjacent hours joined, and the part of the window older than every stored hour.
 */
export async function clientRanges(
  db: ReadDb,
  client: ClientFilter,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<TimeRange[]> {
  if (untilNs <= sinceNs) return [];
  const table = CLIENT_TABLE.tool_hours;
  const filter = clientWhere(client);
  const hours = await db.all(
    `SELECT DISTINCT hour FROM ${table} WHERE hour >= ? AND hour <= ?${filter.rollups} ORDER BY hour DESC`,
    [sinceNs / NS_PER_HOUR, (untilNs - 1n) / NS_PER_HOUR, ...filter.params],
  );
  // Read after the hours, in a statement of its own: a retention step between the two deletes hours, which
  // then lie below the oldest left and are read the plain way (read first, they would be read by neither).
  const [oldest] = await db.all(`SELECT MIN(hour) AS hour FROM ${table}`);
  const ranges: TimeRange[] = [];
  for (const r of hours) {
    const hour = big(r.hour);
    const fromNs = hour * NS_PER_HOUR > sinceNs ? hour * NS_PER_HOUR : sinceNs;
    const endNs = (hour + 1n) * NS_PER_HOUR < untilNs ? (hour + 1n) * NS_PER_HOUR : untilNs;
    const last = ranges.at(-1);
    // Newest first: an hour right before the last range extends it.
    if (last && last.fromNs === endNs) last.fromNs = fromNs;
    else if (last && ranges.length >= MAX_RANGES) last.fromNs = fromNs;
    else ranges.push({ fromNs, untilNs: endNs });
  }
  // No stored hour at all: nothing tells where the calls are, so the whole window is read.
  const oldestNs =
    oldest?.hour === null || oldest?.hour === undefined ? untilNs : big(oldest.hour) * NS_PER_HOUR;
  if (sinceNs < oldestNs) {
    const endNs = oldestNs < untilNs ? oldestNs : untilNs;
    const last = ranges.at(-1);
    if (last && last.fromNs <= endNs) last.fromNs = sinceNs;
    else ranges.push({ fromNs: sinceNs, untilNs: endNs });
  }
  return ranges;
}
