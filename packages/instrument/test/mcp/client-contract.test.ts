// The client adapter against a server that breaks its own outputSchema: whenever the SDK's client refuses the
// structuredContent (it throws -32602), the CLIENT span says INVALID_OUTPUT with the failing paths, no values.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { instrumentMcpClient } from '../../src/index.js';
import { createTracing } from '../tracing.js';

/** Each schema with a value breaking it, and the paths the SDK's validator names. */
const cases: { name: string; schema: Record<string, unknown>; value: unknown; paths: string[] }[] =
  [
    {
      name: 'a wrong type',
      schema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
      value: { count: 'many-secret' },
      paths: ['count'],
    },
    {
      // Rules Zod's JSON Schema reader does not apply: the SDK refused this before and the span said nothing.
      name: 'an if/then rule',
      schema: {
        type: 'object',
        if: { properties: { kind: { const: 'box' } } },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, in a plain schema object
        then: { required: ['size'] },
      },
      value: { kind: 'box' },
      // Ajv also says the value failed the `if` as a whole.
      paths: ['size', '(root)'],
    },
    {
      name: 'a format and an extra key',
      schema: {
        type: 'object',
        properties: { at: { type: 'string', format: 'date-time' } },
        additionalProperties: false,
      },
      value: { at: 'yesterday-secret', extra: 1 },
      paths: ['extra', 'at'],
    },
  ];

describe('instrumentMcpClient and a broken output contract', () => {
  for (const c of cases) {
    it(`records the SDK's refusal of ${c.name} with its paths`, async () => {
      const server = new Server({ name: 'liar', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: 'lie', inputSchema: { type: 'object' }, outputSchema: c.schema as never }],
      }));
      server.setRequestHandler(CallToolRequestSchema, async () => ({
        content: [],
        structuredContent: c.value as Record<string, unknown>,
      }));
      const t = createTracing();
      const client = instrumentMcpClient(new Client({ name: 'agent', version: '1' }), {
        tracerProvider: t.provider,
      });
      const [a, b] = InMemoryTransport.createLinkedPair();
      await Promise.all([server.connect(b), client.connect(a)]);
      await client.listTools();
      await expect(client.callTool({ name: 'lie', arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
      await client.close();
      await t.settled();
      const span = t.only();
      expect(span.attributes).toMatchObject({
        'error.type': 'INVALID_OUTPUT',
        'toolscope.error.code': 'INVALID_OUTPUT',
      });
      const issues = JSON.parse(String(span.attributes['toolscope.validation.issues'])) as {
        path: string;
      }[];
      expect(issues.map((i) => i.path)).toEqual(c.paths);
      expect(JSON.stringify(issues)).not.toContain('secret');
    });
  }
});
