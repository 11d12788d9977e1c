// An MCP server over stdio for secrets-proxy.test.ts: whatever it is sent comes back with the secret corpus in
// it, as a JSON text result, as structured content, as an isError text, as a thrown error (the SDK answers it
// as an isError text) and as a rejection envelope whose reason is a secret.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { SECRET_FORMATS } from '../../packages/instrument/test/secret-corpus.js';

const server = new McpServer({ name: 'secrets-upstream', version: '1.0.0' });
const payload = { payload: z.looseObject({}) };
const message = { message: z.string() };
server.registerTool('echo_text', { inputSchema: payload }, async (args) => ({
  content: [{ type: 'text', text: JSON.stringify(args.payload) }],
}));
server.registerTool('echo_structured', { inputSchema: payload }, async (args) => ({
  content: [{ type: 'text', text: 'see structured content' }],
  structuredContent: args.payload,
}));
server.registerTool('refuse', { inputSchema: message }, async (args) => ({
  content: [{ type: 'text', text: `refused: ${args.message}` }],
  isError: true,
}));
server.registerTool('explode', { inputSchema: message }, async (args) => {
  throw new Error(args.message);
});
server.registerTool('reject', { inputSchema: message }, async (args) => ({
  content: [{ type: 'text', text: args.message }],
  structuredContent: {
    ok: false,
    code: 'REJECTED',
    message: args.message,
    reason: SECRET_FORMATS.find((e) => e.id === 'stripe-secret')?.text ?? '',
    retryable: false,
    partialEffect: false,
    attempt: 1,
  },
  isError: true,
}));
await server.connect(new StdioServerTransport());
