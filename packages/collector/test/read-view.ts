// The storage reader's answers as the API shows them: the tests assert what the routes, `report` and the
// dashboard rely on, so they read a store through the API's own mappings (api/records-out.ts and friends).
import { callsOut, contractsOut, searchOut, seriesOut } from '../src/api/records-out.js';
import { withReadings } from '../src/api/span-reading.js';
import { storedJoin } from '../src/api/stored-join.js';
import { toolStats } from '../src/api/tool-stats.js';
import type { CallSide } from '../src/calls/sides.js';
import type { CallFilter, SpanReader } from '../src/storage/contract.js';

export const readTools = (
  s: SpanReader,
  sinceNs: bigint,
  untilNs: bigint,
  tool?: string,
  side?: CallSide,
) => toolStats(s, sinceNs, untilNs, tool, side);

export const readCalls = async (s: SpanReader, filter: CallFilter) =>
  callsOut(await s.calls(filter));

export const readSearch = async (s: SpanReader, query: string, sinceNs: bigint) =>
  (await s.search(query, sinceNs)).map(searchOut);

export const readSeries = async (s: SpanReader, ...args: Parameters<SpanReader['timeseries']>) =>
  seriesOut(await s.timeseries(...args));

export const readContracts = (s: SpanReader, name: string) => contractsOut(s, name);

/** A trace's spans in the API's span shape, without the collector's reading of each. */
export async function readTrace(s: SpanReader, traceId: string) {
  const spans = await s.trace(traceId);
  return (
    spans && withReadings(spans).map(({ call: _c, modelCall: _m, service: _s, ...span }) => span)
  );
}

/** A trace's spans with the collector's reading of each, the writers' join read as the trace page reads it. */
export async function readTraceCalls(s: SpanReader, traceId: string) {
  const spans = (await s.trace(traceId)) ?? [];
  return withReadings(spans, await storedJoin(s, [traceId]));
}

/** A conversation's spans in the API's span shape, without the collector's reading of each. */
export async function readConversation(s: SpanReader, id: string) {
  const found = await s.conversation(id);
  if (!found) return null;
  const spans = withReadings(found.spans).map(
    ({ call: _c, modelCall: _m, service: _s, ...span }) => span,
  );
  return { traceIds: found.traceIds, spans };
}
