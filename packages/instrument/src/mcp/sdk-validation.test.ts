// The SDK's validation messages as real servers write them (SDK 1.32 with zod 4 and zod 3 schemas, SDK 2.4 in the
// 2026-07-28 revision, and the zod 3 issue list older 1.x releases put in a -32602 error), read back into paths
// and codes without the values the client sent.
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpHandler, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { sdkValidationOfResult, sdkValidationOfText } from './sdk-validation.js';

const SECRET = 'hunter2-secret';

/** The text of the isError result an SDK 1.32 McpServer answers for `args`. */
async function v1Answer(register: (s: McpServer) => void, tool: string, args: unknown) {
  const server = new McpServer({ name: 'v1', version: '1' });
  register(server);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(b);
  const result = await client.callTool({ name: tool, arguments: args as Record<string, unknown> });
  await client.close();
  return result;
}

const trip = {
  city: z.string(),
  days: z.number().int().min(1),
  legs: z.array(z.object({ from: z.string(), at: z.iso.datetime() })),
  mode: z.enum(['rail', 'road']),
};

describe('sdkValidationOfText', () => {
  it('reads SDK 1.x (zod 4) messages: one `<message> at <path>` line per issue', async () => {
    const result = await v1Answer(
      (s) => s.registerTool('plan_trip', { inputSchema: trip }, async () => ({ content: [] })),
      'plan_trip',
      { city: 7, days: 0, legs: [{ from: 'Oslo', at: SECRET }], mode: SECRET },
    );
    const read = sdkValidationOfResult(result);
    expect(read).toEqual({
      code: 'INVALID_INPUT',
      issues: [
        {
          path: 'city',
          code: 'invalid_type',
          message: 'Invalid input: expected string, received number',
        },
        { path: 'days', code: 'too_small', message: 'Too small: expected number to be >=1' },
        { path: 'legs.0.at', code: 'invalid_format', message: 'Invalid ISO datetime' },
        {
          path: 'mode',
          code: 'invalid_value',
          message: 'Invalid option: expected one of "rail"|"road"',
        },
      ],
    });
    expect(JSON.stringify(read)).not.toContain(SECRET);
  });

  it('reads SDK 1.x messages of zod 3 schemas, cutting the value an enum message quotes', async () => {
    const result = await v1Answer(
      (s) =>
        s.registerTool(
          'pick',
          { inputSchema: { colour: z3.enum(['red', 'blue']), size: z3.number() } },
          async () => ({ content: [] }),
        ),
      'pick',
      { colour: SECRET },
    );
    const read = sdkValidationOfResult(result);
    expect(read?.issues.map((i) => [i.path, i.code])).toEqual([
      ['colour', 'invalid_value'],
      ['size', 'invalid_type'],
    ]);
    expect(JSON.stringify(read)).not.toContain(SECRET);
  });

  it('reads SDK 2.x messages (`<path>: <message>, …`) from a server in the 2026-07-28 revision', async () => {
    const handler = createMcpHandler(() => {
      const server = new McpServerV2({ name: 'v2', version: '2' });
      server.registerTool('plan_trip', { inputSchema: z.object(trip).strict() }, async () => ({
        content: [],
      }));
      return server;
    });
    const client = new ClientV2(
      { name: 'c', version: '2' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://in-process/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const result = await client.callTool({
      name: 'plan_trip',
      arguments: {
        city: 'Oslo',
        days: 'two',
        legs: [{ from: 3, at: SECRET }],
        mode: 'rail',
        [SECRET]: 1,
      },
    });
    await client.close();
    await handler.close();
    const read = sdkValidationOfResult(result);
    expect(read).toEqual({
      code: 'INVALID_INPUT',
      issues: [
        {
          path: 'days',
          code: 'invalid_type',
          message: 'Invalid input: expected number, received string',
        },
        {
          path: 'legs.0.from',
          code: 'invalid_type',
          message: 'Invalid input: expected string, received number',
        },
        { path: 'legs.0.at', code: 'invalid_format', message: 'Invalid ISO datetime' },
        // A key the client added is named (paths carry keys), its value never.
        {
          path: SECRET,
          code: 'unrecognized_keys',
          message: 'Unrecognized key: not part of the contract',
        },
      ],
    });
  });

  it('reads the zod 3 issue list that SDK 1.x releases before the isError answer put in a -32602 error', () => {
    // Those releases threw `new McpError(InvalidParams, \`Invalid arguments for tool ${name}: ${error.message}\`)`,
    // and zod 3's message is its issue list as JSON.
    const parsed = z3
      .object({ a: z3.number(), b: z3.enum(['x', 'y']) })
      .strict()
      .safeParse({ a: SECRET, b: SECRET, extra: 1 });
    expect(parsed.success).toBe(false);
    const message = `MCP error -32602: Invalid arguments for tool get-sum: ${parsed.error?.message}`;
    const read = sdkValidationOfText(message);
    expect(read?.code).toBe('INVALID_INPUT');
    expect(read?.issues.map((i) => [i.path, i.code])).toEqual([
      ['a', 'invalid_type'],
      ['b', 'invalid_enum_value'],
      ['extra', 'unrecognized_keys'],
    ]);
    expect(JSON.stringify(read)).not.toContain(SECRET);
  });

  it("reads a server's own output failure, and keeps a custom message out", async () => {
    const result = await v1Answer(
      (s) =>
        s.registerTool(
          'mean',
          {
            inputSchema: {
              n: z.number().refine((n) => n > 0, { message: `${SECRET} is not > 0` }),
            },
            outputSchema: { mean: z.number() },
          },
          async () => ({ content: [], structuredContent: { mean: 'NaN' } }),
        ),
      'mean',
      { n: 2 },
    );
    expect(sdkValidationOfResult(result)).toEqual({
      code: 'INVALID_OUTPUT',
      issues: [
        {
          path: 'mean',
          code: 'invalid_type',
          message: 'Invalid input: expected number, received string',
        },
      ],
    });
    const custom = await v1Answer(
      (s) =>
        s.registerTool(
          'mean',
          {
            inputSchema: {
              n: z.number().refine((n) => n > 0, { message: `${SECRET} is not > 0` }),
            },
          },
          async () => ({ content: [] }),
        ),
      'mean',
      { n: -1 },
    );
    const read = sdkValidationOfResult(custom);
    expect(read?.issues).toEqual([
      {
        path: 'n',
        code: 'custom',
        message: 'Rejected by the server (its message is not recorded)',
      },
    ]);
  });

  it('says nothing of texts that are not SDK validation messages', () => {
    expect(sdkValidationOfText('Access denied - path outside allowed directories')).toBeUndefined();
    expect(sdkValidationOfText('MCP error -32602: Tool nope not found')).toBeUndefined();
    expect(
      sdkValidationOfResult({ content: [{ type: 'text', text: 'Input validation error: x' }] }),
    ).toBeUndefined();
  });
});
