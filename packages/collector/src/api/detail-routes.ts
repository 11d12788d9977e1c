// GET /api/tools/:name, /api/timeseries and /api/search: the data behind the dashboard's tool page, the
// overview chart and the search box.
import type { FastifyInstance } from 'fastify';
import type { Storage } from '../storage/contract.js';
import {
  parseQuery,
  parseRange,
  searchQuerySchema,
  timeseriesQuerySchema,
  toolDetailQuerySchema,
  toolParams,
} from './params.js';
import { searchOut, seriesOut } from './records-out.js';
import { badRequest, notFound } from './replies.js';
import type { SearchResponse, TimeseriesResponse, ToolDetailResponse } from './schemas.js';
import { toolPage } from './tool-page.js';

const WEEK_NS = 7n * 86_400_000n * 1_000_000n;

export function registerDetailRoutes(app: FastifyInstance, storage: Storage): void {
  app.get('/api/tools/:name', async (request, reply) => {
    const p = parseQuery(toolParams, request.params);
    if (!p.ok) return badRequest(reply, p.message);
    const q = parseRange(toolDetailQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const { range } = q;
    const body: ToolDetailResponse | null = await toolPage(
      storage,
      p.data.name,
      range.sinceNs,
      range.untilNs,
    );
    if (!body) return notFound(reply, `tool ${JSON.stringify(p.data.name)} has no stored calls`);
    return body;
  });

  app.get('/api/timeseries', async (request, reply) => {
    const q = parseRange(timeseriesQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const { range } = q;
    // Default step: about 60 points over the range.
    const rangeMs = Number((range.untilNs - range.sinceNs) / 1_000_000n);
    const step = q.data.step ?? Math.max(60_000, Math.round(rangeMs / 60 / 60_000) * 60_000);
    const body: TimeseriesResponse = seriesOut(
      await storage.timeseries(
        range.sinceNs,
        range.untilNs,
        step,
        q.data.tool,
        q.data.side,
        q.data.byTool,
        q.data.client === undefined
          ? undefined
          : { name: q.data.client, version: q.data.clientVersion },
      ),
    );
    return body;
  });

  app.get('/api/search', async (request, reply) => {
    const q = parseQuery(searchQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const body: SearchResponse = {
      results: (await storage.search(q.data.q, BigInt(Date.now()) * 1_000_000n - WEEK_NS)).map(
        searchOut,
      ),
    };
    return body;
  });
}
