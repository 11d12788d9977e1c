// GET /api/tools, /api/calls, /api/traces/:traceId, /api/conversations/:id and /api/health.
import type { FastifyInstance } from 'fastify';
import { flagsOf } from '../detection/read-flags.js';
import type { FlagsResponse } from '../detectors/flag.js';
import type { BodyBudget } from '../ingest/body-budget.js';
import type { WriteQueue } from '../ingest/write-queue.js';
import type { Storage } from '../storage/contract.js';
import {
  callsQuerySchema,
  conversationParams,
  flagsQuerySchema,
  parseQuery,
  parseRange,
  toolsQuerySchema,
  traceIdParams,
} from './params.js';
import { callsOut } from './records-out.js';
import { badRequest, notFound } from './replies.js';
import type {
  CallsResponse,
  ConversationResponse,
  ToolsResponse,
  TraceResponse,
} from './schemas.js';
import { withReadings } from './span-reading.js';
import { storedJoin } from './stored-join.js';
import { toolStats } from './tool-stats.js';
import { contractWeights, serverWeights } from './tool-weights.js';

export type QueryRouteOptions = {
  storage: Storage;
  queue: WriteQueue;
  budget: BodyBudget;
  version: string;
};

export function registerQueryRoutes(
  app: FastifyInstance,
  { storage, queue, budget, version }: QueryRouteOptions,
): void {
  app.get('/api/tools', async (request, reply) => {
    const q = parseRange(toolsQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const { range, data } = q;
    const summaries = await storage.contractSummaries(data.tool);
    const client =
      data.client === undefined ? undefined : { name: data.client, version: data.clientVersion };
    const body: ToolsResponse = {
      tools: await toolStats(storage, range.sinceNs, range.untilNs, data.tool, data.side, client),
      servers: serverWeights(summaries),
      contracts: contractWeights(summaries),
    };
    return body;
  });

  app.get('/api/calls', async (request, reply) => {
    const q = parseRange(callsQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const { range } = q;
    const { since: _s, until: _u, client, clientVersion, ...filters } = q.data;
    const body: CallsResponse = callsOut(
      await storage.calls({
        ...filters,
        ...range,
        ...(client === undefined ? {} : { client: { name: client, version: clientVersion } }),
      }),
    );
    return body;
  });

  app.get('/api/traces/:traceId', async (request, reply) => {
    const p = parseQuery(traceIdParams, request.params);
    if (!p.ok) return badRequest(reply, p.message);
    // The spans and the calls' stored facts asked together: on PostgreSQL each takes its own connection, so
    // the answer waits for the slower of the two, not their sum (an unknown trace costs one needless lookup).
    const [spans, facts] = await Promise.all([
      storage.trace(p.data.traceId),
      storedJoin(storage, [p.data.traceId]),
    ]);
    if (!spans) return notFound(reply, `trace ${p.data.traceId} is not stored`);
    const body: TraceResponse = { traceId: p.data.traceId, spans: withReadings(spans, facts) };
    return body;
  });

  app.get('/api/conversations/:id', async (request, reply) => {
    const p = parseQuery(conversationParams, request.params);
    if (!p.ok) return badRequest(reply, p.message);
    const found = await storage.conversation(p.data.id);
    if (!found) return notFound(reply, `conversation ${p.data.id} is not stored`);
    const body: ConversationResponse = {
      conversationId: p.data.id,
      traceIds: found.traceIds,
      spans: withReadings(found.spans, await storedJoin(storage, found.traceIds)),
    };
    return body;
  });

  app.get('/api/flags', async (request, reply) => {
    const q = parseRange(flagsQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const { range } = q;
    const body: FlagsResponse = {
      flags: await flagsOf(storage, range.sinceNs, range.untilNs, {
        kind: q.data.kind,
        tool: q.data.tool,
      }),
    };
    return body;
  });

  app.get('/api/health', async () => ({
    status: 'ok',
    version,
    pendingSpans: queue.pendingSpans,
    bodyBytesInFlight: budget.stats.usedBytes,
  }));
}
