// Storage's records in the API's shapes (schemas.ts owns them): a series' steps with their ISO times, search
// matches with the label the search box shows, a contract with ISO first and last sightings, a page of calls.
// Calls and spans have modules of their own (call-out.ts, span-reading.ts).
import type { CallPage, SearchHit, Series, ToolContract } from '../storage/contract.js';
import { callOut, isoOfNs } from './call-out.js';
import type {
  CallsResponse,
  SearchResult,
  TimeseriesResponse,
  ToolContractOut,
} from './schemas.js';

export function callsOut(page: CallPage): CallsResponse {
  return { calls: page.calls.map(callOut), nextCursor: page.nextCursor };
}

export function seriesOut(s: Series): TimeseriesResponse {
  const out: TimeseriesResponse = {
    stepMs: s.stepMs,
    points: s.points.map((p) => ({
      t: isoOfNs(p.startNs),
      calls: p.calls,
      errors: p.errors,
      errorsByCode: p.errorsByCode,
    })),
  };
  if (s.tools) out.tools = s.tools;
  return out;
}

export function searchOut(hit: SearchHit): SearchResult {
  if (hit.kind === 'call')
    return {
      kind: 'call',
      value: hit.spanId,
      label: `call ${hit.callId} (${hit.tool})`,
      traceId: hit.traceId,
    };
  return { kind: hit.kind, value: hit.value, label: `${hit.kind} ${hit.value}` };
}

export function contractOut(c: ToolContract): ToolContractOut {
  return {
    version: c.version,
    schemaHash: c.schemaHash,
    services: c.services,
    firstSeen: isoOfNs(c.firstNs),
    lastSeen: isoOfNs(c.lastNs),
    description: c.description,
    inputSchema: c.inputSchema,
    outputSchema: c.outputSchema,
    schemaBytes: c.schemaBytes,
    schemaTokens: c.schemaTokens,
    deprecated: c.deprecated,
    annotations: c.annotations,
    reported: c.reported,
    calls: c.calls,
  };
}

/** Every contract of a tool in the API's shape, or null for a tool never seen. */
export async function contractsOut(
  reader: { contracts(name: string): Promise<ToolContract[] | null> },
  name: string,
): Promise<ToolContractOut[] | null> {
  return (await reader.contracts(name))?.map(contractOut) ?? null;
}
