// GET /api/fixtures: the regression fixture file of a trace's, a flag's or a tool's recorded calls
// (docs/fixtures.md), byte for byte what `toolscope fixtures` writes for the same selection, as a download.
import { fixtureFileName, fixtureText } from '@toolscope/instrument/fixtures';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { flagsOf } from '../detection/read-flags.js';
import { type FixtureSelection, readFixtures } from '../fixtures/read-fixtures.js';
import { selectionParams } from '../fixtures/selection-params.js';
import type { Storage } from '../storage/contract.js';
import { parseQuery, rangeOf, rangeQuerySchema } from './params.js';
import { badRequest, notFound } from './replies.js';

const DAY_NS = 86_400_000n * 1_000_000n;
/** How far back a flag is looked for when no range is given: the dashboard passes the range it shows. */
const FLAG_WINDOW_NS = 7n * DAY_NS;

export const fixturesQuerySchema = rangeQuerySchema
  .extend({
    ...selectionParams,
  })
  .strict();
type FixturesQuery = z.output<typeof fixturesQuerySchema>;

/** The selection a query names, or why it names none. */
function selectionOf(q: FixturesQuery): FixtureSelection | { error: string } {
  if (q.trace && q.flag) return { error: 'trace, flag: give one of them' };
  const now = BigInt(Date.now()) * 1_000_000n;
  if (q.trace) return { kind: 'trace', traceId: q.trace, tool: q.tool };
  if (q.flag) {
    const range = rangeOf({ since: q.since ?? (q.until ?? now) - FLAG_WINDOW_NS, until: q.until });
    if ('error' in range) return range;
    return { kind: 'flag', flagId: q.flag, ...range, tool: q.tool };
  }
  if (!q.tool) return { error: 'trace, flag or tool: name the calls to make fixtures of' };
  const range = rangeOf(q);
  if ('error' in range) return range;
  return { kind: 'calls', tool: q.tool, code: q.code, limit: q.limit, ...range };
}

export function registerFixtureRoutes(app: FastifyInstance, storage: Storage): void {
  app.get('/api/fixtures', async (request, reply) => {
    const q = parseQuery(fixturesQuerySchema, request.query);
    if (!q.ok) return badRequest(reply, q.message);
    const sel = selectionOf(q.data);
    if ('error' in sel) return badRequest(reply, sel.error);
    const read = await readFixtures(
      { reader: storage, flags: (since, until) => flagsOf(storage, since, until, {}) },
      sel,
    );
    if (!read.ok) return notFound(reply, read.message);
    const [file, ...more] = read.files;
    if (!file || more.length > 0)
      return badRequest(
        reply,
        `tool: these calls are of ${read.files.length} tools (${read.files.map((f) => f.tool).join(', ')}): name one with tool=`,
      );
    return reply
      .type('application/json')
      .header('content-disposition', `attachment; filename="${fixtureFileName(file.tool)}"`)
      .send(fixtureText(file));
  });
}
