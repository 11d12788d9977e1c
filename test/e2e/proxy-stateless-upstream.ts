// An MCP server of the stateless 2026-07-28 revision over stdio, written by hand (the SDK installed here speaks
// the session-based revisions only): no `initialize`, a `server/discover` bootstrap naming the server, and one
// tool. Run as the proxy's child in the proxy tests.
import { createInterface } from 'node:readline';

const answer = (id: unknown, result: unknown) =>
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  let m: { id?: unknown; method?: unknown; params?: { arguments?: { word?: unknown } } };
  try {
    m = JSON.parse(line);
  } catch {
    continue;
  }
  if (m.method === 'server/discover')
    answer(m.id, {
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'discoverer', version: '7.0.0' },
      ttlMs: 300_000,
    });
  else if (m.method === 'tools/list')
    answer(m.id, {
      tools: [
        {
          name: 'echo_word',
          inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
        },
      ],
      resultType: 'complete',
    });
  else if (m.method === 'tools/call')
    answer(m.id, {
      content: [{ type: 'text', text: String(m.params?.arguments?.word ?? '') }],
      resultType: 'complete',
    });
  else if (m.id !== undefined)
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } })}\n`,
    );
}
