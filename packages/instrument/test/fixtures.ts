// The example tools (get_order, and an idempotent write), shared by the instrument tests.
import { z } from 'zod';

export const getOrderInput = z
  .object({
    customerId: z.string().min(1).describe('Customer identifier, e.g. "cus_1"'),
    includeHistory: z.boolean().default(false).describe('Also return cancelled orders'),
  })
  .strict();

export const getOrderOutput = z.object({
  found: z.boolean(),
  customerId: z.string(),
  orders: z.array(z.object({ id: z.string(), status: z.enum(['pending', 'paid', 'cancelled']) })),
});

export type GetOrderOutput = z.input<typeof getOrderOutput>;

export const okOrders = (customerId: string): GetOrderOutput => ({
  found: true,
  customerId,
  orders: [{ id: 'ord_1', status: 'paid' }],
});

export const orderIntentInput = z
  .object({ sku: z.string().min(1), quantity: z.number().int().positive() })
  .strict();
export const orderIntentOutput = z.object({ intentId: z.string(), status: z.literal('created') });
