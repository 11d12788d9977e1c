// A defineTool tool of docs/mcp.md: its Zod contract is the MCP contract on either SDK major.
import { defineTool } from '@toolscope/instrument';
import { z } from 'zod';

export const getOrder = defineTool({
  name: 'get_order',
  version: '2',
  effect: 'read',
  description: 'One order by id',
  input: z.object({ orderId: z.string().min(1) }).strict(),
  output: z.object({ orderId: z.string(), status: z.enum(['pending', 'shipped']) }),
  execute: ({ orderId }, ctx) =>
    orderId === 'o-404'
      ? ctx.reject('not_found', `No order ${orderId}`)
      : { orderId, status: 'pending' as const },
});
