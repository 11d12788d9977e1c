// The orders server over stdio (docs/mcp.md): serveStdio answers 2025 `initialize` and 2026-07-28 alike.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { setupToolscope } from '@toolscope/instrument/setup';
import { ordersServer } from './mcp-v2-orders.js';

setupToolscope({ serviceName: 'orders-mcp' }); // skip if you already run an OTel SDK
serveStdio(ordersServer);
