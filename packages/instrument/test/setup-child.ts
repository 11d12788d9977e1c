// A short-lived program as users write it: set up the SDK, call tools, exit without flushing by hand.
import { z } from 'zod';
import { defineTool } from '../src/index.js';
import { setupToolscope } from '../src/setup.js';

setupToolscope({ serviceName: 'setup-child' });
const tool = defineTool({
  name: 'get_order',
  version: '1',
  effect: 'read',
  description: 'd',
  input: z.object({ customerId: z.string() }),
  output: z.object({ ok: z.boolean() }),
  execute: () => ({ ok: true }),
});
await tool.call({ customerId: 'cus_1' });
await tool.call({ customerId: 42 });
