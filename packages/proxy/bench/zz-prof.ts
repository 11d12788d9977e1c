import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200);
    res.end();
  });
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [
    '--cpu-prof',
    '--cpu-prof-dir=/tmp/pxy/prof',
    here('../bin/toolscope-proxy.js'),
    '--otlp-endpoint',
    url,
    '--log-level',
    'warn',
    '--',
    process.execPath,
    here('./upstream.mjs'),
  ],
  stderr: 'inherit',
  env: { ...process.env, TOOLSCOPE_HASH_KEY: 'k' } as Record<string, string>,
});
const client = new Client({ name: 'p', version: '1' });
await client.connect(transport);
await client.listTools();
for (let i = 0; i < 6000; i++)
  await client.callTool({
    name: 'get_order',
    arguments: { customerId: 'cus_1', includeHistory: true },
  });
await client.close();
sink.close();
