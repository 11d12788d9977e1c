// GET /api/tools/:name/recovery and GET /api/recovery: what agents did after failed calls, per code and message
// for one tool, and per tool over the range (the overview's share recovered, `report`'s table).
import type { FastifyInstance } from 'fastify';
import { readRecovery } from '../detection/read-recovery.js';
import type { Storage } from '../storage/contract.js';
import { parseQuery, rangeOf, toolDetailQuerySchema, toolParams } from './params.js';
import { recoveryOverviewOf, toolRecoveryOf } from './recovery-page.js';
import { badRequest, notFound } from './replies.js';

export function registerRecoveryRoutes(app: FastifyInstance, storage: Storage): void {
  app.get('/api/tools/:name/recovery', async (request, reply) => {
    const p = parseQuery(toolParams, request.params);
    if (!p.ok) return badRequest(reply, p.message);
    const q = parseQuery(toolDetailQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const range = rangeOf(q.data);
    if ('error' in range) return badRequest(reply, range.error);
    const name = p.data.name;
    const tally = await readRecovery(storage, range.sinceNs, range.untilNs, name);
    if (tally.failuresInRange === 0 && !(await storage.toolKnown(name)))
      return notFound(reply, `tool ${JSON.stringify(name)} has no stored calls`);
    return toolRecoveryOf(name, tally, range);
  });

  app.get('/api/recovery', async (request, reply) => {
    const q = parseQuery(toolDetailQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const range = rangeOf(q.data);
    if ('error' in range) return badRequest(reply, range.error);
    return recoveryOverviewOf(await readRecovery(storage, range.sinceNs, range.untilNs), range);
  });
}
