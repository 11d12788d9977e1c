// The seeds' tools, each one Zod contract. Two deployments exist: `stable`, and a `canary` that (a)
// changed get_order's output contract but kept its version (a silent schema change), and (b) ships
// catalogue_list v3, whose input nests the price range (clients on the v2 shape get INVALID_INPUT). list_catalogue
// is catalogue_list's old name, deprecated. order_search (order-search.ts) is the same on both: the heavy contract.
import { defineTool } from '@toolscope/instrument';
import { z } from 'zod';
import { orderSearch } from './order-search.js';
import {
  createIntent,
  fetchOrderHistory,
  fetchOrders,
  inStock,
  listCatalogue,
} from './upstream.js';

export const VARIANTS = ['stable', 'canary'] as const;
export type Variant = (typeof VARIANTS)[number];

const orderSchema = z.object({
  id: z.string(),
  status: z.enum(['pending', 'paid', 'cancelled']),
  total: z.number(),
});

function getOrder(variant: Variant) {
  const order =
    variant === 'canary'
      ? orderSchema.extend({ eta: z.string().optional().describe('Delivery estimate, ISO date') })
      : orderSchema;
  return defineTool({
    name: 'get_order',
    version: '2',
    effect: 'read',
    description: 'Orders of one customer. Use the customer id string from the CRM, e.g. "cus_42".',
    input: z
      .object({ customerId: z.string().min(1).describe('Customer id such as "cus_42"') })
      .strict(),
    output: z.object({ customerId: z.string(), orders: z.array(order) }),
    retry: { maxAttempts: 3, backoffMs: 25 },
    timeoutMs: 2_000,
    // The upstream's JSON is typed only by its docs: the output contract is what checks it.
    execute: async ({ customerId }) => ({
      customerId,
      orders: (await fetchOrders(customerId)) as z.input<typeof order>[],
    }),
  });
}

const itemsOutput = z.object({
  items: z.array(z.object({ sku: z.string(), name: z.string(), price: z.number() })),
});

function catalogueList(variant: Variant) {
  if (variant === 'canary') {
    return defineTool({
      name: 'catalogue_list',
      version: '3',
      effect: 'read',
      description: 'Catalogue items within a price range (v3: the range is one object).',
      input: z
        .object({
          price: z
            .object({ min: z.number().min(0), max: z.number().min(0) })
            .strict()
            .refine((r) => r.min <= r.max, { message: 'min must not exceed max', path: ['min'] }),
        })
        .strict(),
      output: itemsOutput,
      execute: async ({ price }) => ({ items: await listCatalogue(price.min, price.max) }),
    });
  }
  return defineTool({
    name: 'catalogue_list',
    version: '2',
    effect: 'read',
    description: 'Catalogue items within a price range.',
    input: z
      .object({
        minPrice: z.number().min(0).describe('Lowest price, inclusive'),
        maxPrice: z.number().min(0).describe('Highest price, inclusive'),
      })
      .strict()
      .refine((r) => r.minPrice <= r.maxPrice, {
        message: 'minPrice must not exceed maxPrice',
        path: ['minPrice'],
      }),
    output: itemsOutput,
    execute: async ({ minPrice, maxPrice }) => ({ items: await listCatalogue(minPrice, maxPrice) }),
  });
}

const orderIntent = () =>
  defineTool({
    name: 'order_intent',
    version: '1',
    effect: 'write',
    description:
      'Reserve stock for an order. Pass an idempotency key (_meta "toolscope.dev/idempotency-key") to retry safely.',
    input: z.object({ sku: z.string().min(1), quantity: z.number().int().positive() }).strict(),
    output: z.object({ intentId: z.string() }),
    timeoutMs: 300,
    execute: async ({ sku, quantity }, ctx) => {
      if (!inStock(sku)) return ctx.reject('out_of_stock', `${sku} is out of stock`);
      // From here on the write may be applied even if we never see the answer.
      ctx.markPartialEffect();
      return createIntent(sku, quantity, ctx.signal);
    },
  });

/**
 * The catalogue's old name, kept through a 90-day window after the rename to catalogue_list: it
 * answers as before, and every call says it is deprecated, so the collector can list who still calls it.
 */
const listCatalogueOld = () =>
  defineTool({
    name: 'list_catalogue',
    version: '1',
    effect: 'read',
    description: 'Catalogue items up to a price. Deprecated: use catalogue_list.',
    input: z.object({ maxPrice: z.number().min(0) }).strict(),
    output: itemsOutput,
    deprecated: { replacedBy: 'catalogue_list', sunset: '2027-03-01' },
    execute: async ({ maxPrice }) => ({ items: await listCatalogue(0, maxPrice) }),
  });

const pastOrder = z.object({
  id: z.string(),
  placedAt: z.string(),
  status: z.string(),
  total: z.number(),
  items: z.array(z.object({ sku: z.string(), quantity: z.number().int() })),
});

/**
 * A customer's order history ("return the index first and the content after"). v1 returns one page
 * of 10 and a cursor; the canary's v2 "simplified" it and returns every order in one result, hundreds of them:
 * the context-cost flags' demo (oversized_result, result_growth).
 */
function orderHistory(variant: Variant) {
  const input = z
    .object({
      customerId: z.string().min(1).describe('Customer id such as "cus_42"'),
      cursor: z.string().optional().describe('nextCursor of the previous page'),
    })
    .strict();
  if (variant === 'canary') {
    return defineTool({
      name: 'order_history',
      version: '2',
      effect: 'read',
      description: 'Every past order of a customer, newest first.',
      input,
      output: z.object({ orders: z.array(pastOrder) }),
      execute: async ({ customerId }) => ({ orders: await fetchOrderHistory(customerId) }),
    });
  }
  return defineTool({
    name: 'order_history',
    version: '1',
    effect: 'read',
    description: 'Past orders of a customer, newest first, 10 per page; pass nextCursor for more.',
    input,
    output: z.object({ orders: z.array(pastOrder), nextCursor: z.string().nullable() }),
    execute: async ({ customerId, cursor }) => {
      const all = await fetchOrderHistory(customerId);
      const from = cursor ? Number(cursor) : 0;
      const to = from + 10;
      return { orders: all.slice(from, to), nextCursor: to < all.length ? String(to) : null };
    },
  });
}

export function toolsOf(variant: Variant) {
  return [
    getOrder(variant),
    catalogueList(variant),
    orderIntent(),
    listCatalogueOld(),
    orderHistory(variant),
    orderSearch(),
  ] as const;
}
