// The contract catalog and the cause of a failure (docs/contracts.md), on every backend: contract spans become one
// row per (tool, hash) with the services that served it; the same report twice (an exporter retry, a second
// replica) changes nothing but the time span; a call that threw keeps its exception; a span that does not say
// whether an effect happened reads as unknown; the contract flags and read thresholds agree across backends.

import { describe, expect, it } from 'vitest';
import { flagsOf } from '../../src/detection/read-flags.js';
import type { NormalizedSpan } from '../../src/otlp/model.js';
import { BACKENDS } from '../backends.js';
import { readCalls, readContracts, readTools } from '../read-view.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, HOUR_NS, nowNs } from './spans.js';
import { readingWith, useStores } from './stores.js';

let next = 900;
function contractSpan(o: {
  tool: string;
  hash: string;
  service: string;
  statuses: string[];
  deprecated?: { replacedBy: string; sunset: string };
}): NormalizedSpan {
  const entry = {
    name: o.tool,
    description: `The ${o.tool} tool`,
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    outputSchema: {
      type: 'object',
      properties: { status: { type: 'string', enum: o.statuses } },
    },
  };
  const json = JSON.stringify(entry);
  const n = next++;
  const startNs = nowNs() - 60_000_000_000n;
  return {
    ...callSpan({ trace: n, span: 1 }),
    name: `tool_contract ${o.tool}`,
    startNs,
    endNs: startNs,
    statusCode: 0,
    attributes: {
      'toolscope.contract.name': o.tool,
      'toolscope.contract.version': '2',
      'toolscope.contract.hash': o.hash,
      'toolscope.contract.entry': json,
      'toolscope.contract.bytes': Buffer.byteLength(json),
      'toolscope.contract.origin': 'defineTool',
      ...(o.deprecated
        ? {
            'toolscope.deprecated': true,
            'toolscope.deprecated.replaced_by': o.deprecated.replacedBy,
            'toolscope.deprecated.sunset': o.deprecated.sunset,
          }
        : {}),
    },
    resource: { 'service.name': o.service },
  };
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`contracts and causes: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);

    it('keeps one row per (tool, hash) with its services, and diffs what changed', async () => {
      const s = await openAt(await fresh(), readingWith({ schemaTokenBudget: 40 }));
      const stable = contractSpan({
        tool: 'get_order',
        hash: '1111111111111111',
        service: 'stable',
        statuses: ['pending', 'shipped'],
      });
      await writeSpans(s, [stable]);
      // The same contract again from a second replica, and in one batch twice (a retry): still one row.
      const replica = {
        ...contractSpan({
          tool: 'get_order',
          hash: '1111111111111111',
          service: 'stable-2',
          statuses: ['pending', 'shipped'],
        }),
      };
      await writeSpans(s, [replica, { ...replica, spanId: 'ffffffffffffffff' }]);
      await writeSpans(s, [
        contractSpan({
          tool: 'get_order',
          hash: '2222222222222222',
          service: 'canary',
          statuses: ['pending', 'shipped', 'cancelled'],
        }),
        callSpan({ trace: 1, span: 1, version: '2', schemaHash: '1111111111111111' }),
        callSpan({ trace: 2, span: 1, version: '2', schemaHash: '2222222222222222' }),
        callSpan({ trace: 3, span: 1, version: '2', schemaHash: '3333333333333333' }),
      ]);
      const contracts = (await readContracts(s, 'get_order')) ?? [];
      expect(contracts.map((c) => [c.schemaHash, c.services, c.reported, c.calls])).toEqual([
        ['1111111111111111', ['stable', 'stable-2'], true, 1],
        ['2222222222222222', ['canary'], true, 1],
        // Known only from a call: listed, without schemas.
        ['3333333333333333', [], false, 1],
      ]);
      expect(contracts[1]?.outputSchema).toMatchObject({
        properties: { status: { enum: ['pending', 'shipped', 'cancelled'] } },
      });
      expect(contracts[0]?.schemaTokens).toBeGreaterThan(20);
      expect(await readContracts(s, 'never_seen')).toBeNull();

      const since = nowNs() - HOUR_NS;
      const until = nowNs() + HOUR_NS;
      const flags = await flagsOf(s, since, until, {});
      const silent = flags.find((f) => f.kind === 'silent_schema_change');
      expect(silent?.evidence.changes).toEqual(['output.status.enum: added "cancelled"']);
      expect(flags.filter((f) => f.kind === 'heavy_schema').map((f) => f.tool)).toEqual([
        'get_order',
      ]);
      const [tool] = await readTools(s, since, until, 'get_order');
      expect(tool?.schemaTokens).toBe(contracts[1]?.schemaTokens);
    });

    it('lists the callers of a deprecated tool', async () => {
      const s = await openAt(await fresh());
      await writeSpans(s, [
        contractSpan({
          tool: 'catalogue.list',
          hash: '4444444444444444',
          service: 'orders',
          statuses: ['x'],
          deprecated: { replacedBy: 'catalogue.search', sunset: '2000-01-01' },
        }),
        callSpan({ trace: 10, span: 1, tool: 'catalogue.list', conversation: 'conv-1' }),
        {
          ...callSpan({ trace: 11, span: 1, tool: 'catalogue.list', kind: 3 }),
          resource: { 'service.name': 'agent-a' },
        },
      ]);
      const flags = await flagsOf(s, nowNs() - HOUR_NS, nowNs() + HOUR_NS, {
        kind: 'deprecated_tool_in_use',
      });
      expect(flags).toHaveLength(1);
      // The sunset has passed: an error, with the days since.
      expect(flags[0]).toMatchObject({ severity: 'error', count: 2 });
      expect(flags[0]?.evidence).toMatchObject({
        replacedBy: 'catalogue.search',
        callers: ['agent-a'],
        services: ['conformance'],
        conversations: ['conv-1'],
      });
      expect(flags[0]?.evidence.daysLeft).toBeLessThan(0);
    });

    it('keeps the exception of a call that threw, and reads an unsaid partial effect as unknown', async () => {
      const s = await openAt(await fresh());
      const threw = callSpan({ trace: 20, span: 1, tool: 'get_weather', code: 'FAILED' });
      threw.events = [
        {
          timeNs: threw.startNs,
          name: 'exception',
          attributes: { 'exception.type': 'TypeError', 'exception.message': 'boom' },
        },
      ];
      const client = callSpan({ trace: 21, span: 1, tool: 'get_weather', kind: 3 });
      delete client.attributes['toolscope.partial_effect'];
      await writeSpans(s, [threw, client]);
      const window = { sinceNs: nowNs() - HOUR_NS, untilNs: nowNs() + HOUR_NS, limit: 10 };
      const server = (await readCalls(s, { ...window, side: 'server' })).calls[0];
      expect(server).toMatchObject({
        exceptionType: 'TypeError',
        exceptionMessage: 'boom',
        partialEffect: false,
      });
      const caller = (await readCalls(s, { ...window, side: 'client' })).calls[0];
      expect(caller).toMatchObject({ exceptionType: null, partialEffect: null });
      const [tool] = await readTools(s, window.sinceNs, window.untilNs, 'get_weather');
      expect(tool?.exceptions).toEqual([{ type: 'TypeError', count: 1 }]);
    });

    it('remembers the read thresholds of the collector for a report that opens the store', async () => {
      const place = await fresh();
      const writer = await openAt(place, {
        ...readingWith({ schemaTokenBudget: 7 }),
        rememberReadSettings: true,
      });
      await writeSpans(writer, [
        contractSpan({ tool: 't', hash: '5555555555555555', service: 'x', statuses: ['a'] }),
      ]);
      const reader = await openAt(place, { recallReadSettings: true });
      const plain = await openAt(place);
      const heavy = async (st: typeof reader) =>
        (await flagsOf(st, nowNs() - HOUR_NS, nowNs() + HOUR_NS, { kind: 'heavy_schema' })).length;
      expect(await heavy(reader)).toBe(1);
      expect(await heavy(plain)).toBe(0);
    });
  });
}
