// GET /api/tools/:name/contracts and /api/tools/:name/contracts/diff: the contract catalog (docs/contracts.md).
import type { FastifyInstance } from 'fastify';
import { diffContracts } from '../contracts/schema-diff.js';
import type { Storage } from '../storage/contract.js';
import { contractDiffQuerySchema, contractsQuerySchema, parseQuery, toolParams } from './params.js';
import { contractsOut } from './records-out.js';
import { badRequest, notFound } from './replies.js';
import type { ContractDiffResponse, ContractsResponse } from './schemas.js';

export function registerContractRoutes(app: FastifyInstance, storage: Storage): void {
  app.get('/api/tools/:name/contracts', async (request, reply) => {
    const p = parseQuery(toolParams, request.params);
    if (!p.ok) return badRequest(reply, p.message);
    const q = parseQuery(contractsQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const contracts = await contractsOut(storage, p.data.name);
    if (!contracts)
      return notFound(reply, `tool ${JSON.stringify(p.data.name)} has no known contract`);
    const body: ContractsResponse = { contracts };
    return body;
  });

  app.get('/api/tools/:name/contracts/diff', async (request, reply) => {
    const p = parseQuery(toolParams, request.params);
    if (!p.ok) return badRequest(reply, p.message);
    const q = parseQuery(contractDiffQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const contracts = (await storage.contracts(p.data.name)) ?? [];
    const pick = (hash: string) => contracts.find((c) => c.schemaHash === hash);
    for (const hash of [q.data.from, q.data.to]) {
      const c = pick(hash);
      if (!c) return notFound(reply, `tool ${JSON.stringify(p.data.name)} has no contract ${hash}`);
      if (!c.reported)
        return notFound(
          reply,
          `contract ${hash} of ${JSON.stringify(p.data.name)} is known only from calls: its schemas were never reported`,
        );
    }
    const from = pick(q.data.from);
    const to = pick(q.data.to);
    const body: ContractDiffResponse = { changes: from && to ? diffContracts(from, to) : [] };
    return body;
  });
}
