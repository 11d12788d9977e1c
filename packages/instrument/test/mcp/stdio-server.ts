// The fixture server as its own process over stdio, exporting spans with setupToolscope (OTLP from OTEL_*).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { setupToolscope } from '../../src/setup.js';
import { buildServer } from './fixture-server.js';

setupToolscope({ serviceName: 'fixture-stdio-server' });
await buildServer().connect(new StdioServerTransport());
