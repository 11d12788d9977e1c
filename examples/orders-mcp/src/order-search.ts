// order_search: the support team's order finder, a tool whose contract grew one filter at a time. Every filter
// is strict and described, as it should be (an undescribed field is one the agent has to guess), and every one
// was somebody's request: status and dates first, then channels, payments, shipping countries, returns, tags,
// sort orders. Each is reasonable; together its tools/list entry is over the demo collector's schema token budget
// (1000 by default, docs/contracts.md), so every conversation that lists it pays for it before its first call:
// the demo's heavy_schema.
import { defineTool } from '@toolscope/instrument';
import { z } from 'zod';
import { fetchOrderHistory, type PastOrder } from './upstream.js';

const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded'] as const;
const CHANNELS = ['web', 'app', 'marketplace', 'phone'] as const;
const PAYMENTS = ['card', 'paypal', 'bank_transfer', 'invoice', 'gift_card'] as const;
const FULFILMENT = ['unfulfilled', 'partially_fulfilled', 'fulfilled', 'returned'] as const;
const COUNTRIES = ['ES', 'PT', 'FR', 'DE'] as const;
const SORTS = ['placed_desc', 'placed_asc', 'total_desc', 'total_asc'] as const;

const input = z
  .object({
    customerId: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Customer id from the CRM, such as "cus_42"; omit to search every customer you may see',
      ),
    query: z
      .string()
      .min(2)
      .max(200)
      .optional()
      .describe(
        'Free text matched against order ids and SKUs, case-insensitive, e.g. "ord_31" or "lamp"',
      ),
    status: z
      .array(z.enum(STATUSES))
      .min(1)
      .optional()
      .describe('Orders in any of these statuses; omit for every status'),
    placedFrom: z.iso
      .date()
      .optional()
      .describe(
        'Placed on or after this day (ISO 8601, e.g. "2026-11-01"), in the store\'s time zone',
      ),
    placedTo: z.iso
      .date()
      .optional()
      .describe("Placed on or before this day (ISO 8601), in the store's time zone"),
    totalMin: z.number().min(0).optional().describe('Lowest order total, inclusive, in EUR'),
    totalMax: z.number().min(0).optional().describe('Highest order total, inclusive, in EUR'),
    sku: z
      .string()
      .min(1)
      .optional()
      .describe('Only orders with an item of this SKU, e.g. "sku_lamp"'),
    channel: z
      .array(z.enum(CHANNELS))
      .min(1)
      .optional()
      .describe('Where the order was placed: any of these channels; omit for all'),
    paymentMethod: z
      .enum(PAYMENTS)
      .optional()
      .describe('How the order was paid; a split payment matches each of its methods'),
    fulfilment: z
      .enum(FULFILMENT)
      .optional()
      .describe('Warehouse state: "returned" means at least one item came back'),
    shippingCountry: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .optional()
      .describe('ISO 3166-1 alpha-2 country of the shipping address, e.g. "ES"'),
    hasReturn: z
      .boolean()
      .optional()
      .describe(
        'true: only orders with a return request, open or closed; false: only orders without one',
      ),
    tags: z
      .array(z.string().min(1).max(40))
      .max(10)
      .optional()
      .describe('Orders carrying every one of these tags, e.g. ["vip", "gift"]'),
    sort: z
      .enum(SORTS)
      .default('placed_desc')
      .describe('Order of the results: by placing date or by total, descending or ascending'),
    pageSize: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(10)
      .describe('Results per page, at most 50; ask for what you will read'),
    cursor: z
      .string()
      .optional()
      .describe('nextCursor of the previous page, with the same filters'),
  })
  .strict()
  .refine((f) => !f.placedFrom || !f.placedTo || f.placedFrom <= f.placedTo, {
    message: 'placedFrom must not be after placedTo',
    path: ['placedFrom'],
  })
  .refine((f) => f.totalMin === undefined || f.totalMax === undefined || f.totalMin <= f.totalMax, {
    message: 'totalMin must not exceed totalMax',
    path: ['totalMin'],
  });

const found = z.object({
  id: z.string().describe('Order id, e.g. "ord_31_0400"'),
  customerId: z.string(),
  placedAt: z.string().describe('ISO 8601 date-time'),
  status: z.enum(STATUSES),
  total: z.number().describe('In EUR'),
  channel: z.enum(CHANNELS),
  paymentMethod: z.enum(PAYMENTS),
  fulfilment: z.enum(FULFILMENT),
  shippingCountry: z.string(),
  tags: z.array(z.string()),
  items: z.array(z.object({ sku: z.string(), quantity: z.number().int() })),
});
type Found = z.infer<typeof found>;

const output = z.object({
  orders: z.array(found),
  matched: z.number().int().describe('Orders matching the filters, over every page'),
  nextCursor: z
    .string()
    .nullable()
    .describe('Pass it as cursor for the next page; null on the last'),
});

/** The fake orders service's fuller record of a past order: the fields the filters read, derived from its index. */
function detailed(customerId: string, o: PastOrder, i: number): Found {
  return {
    ...o,
    customerId,
    status: o.status === 'pending' ? 'pending' : 'delivered',
    channel: CHANNELS[i % CHANNELS.length] ?? 'web',
    paymentMethod: PAYMENTS[i % PAYMENTS.length] ?? 'card',
    fulfilment: o.status === 'pending' ? 'unfulfilled' : i % 17 === 0 ? 'returned' : 'fulfilled',
    shippingCountry: COUNTRIES[i % COUNTRIES.length] ?? 'ES',
    tags: i % 11 === 0 ? ['gift'] : [],
  };
}

type Filters = z.output<typeof input>;

function matches(o: Found, f: Filters): boolean {
  const day = o.placedAt.slice(0, 10);
  const q = f.query?.toLowerCase();
  return (
    (!q || o.id.includes(q) || o.items.some((x) => x.sku.includes(q))) &&
    (!f.status || f.status.includes(o.status)) &&
    (!f.placedFrom || day >= f.placedFrom) &&
    (!f.placedTo || day <= f.placedTo) &&
    (f.totalMin === undefined || o.total >= f.totalMin) &&
    (f.totalMax === undefined || o.total <= f.totalMax) &&
    (!f.sku || o.items.some((x) => x.sku === f.sku)) &&
    (!f.channel || f.channel.includes(o.channel)) &&
    (!f.paymentMethod || o.paymentMethod === f.paymentMethod) &&
    (!f.fulfilment || o.fulfilment === f.fulfilment) &&
    (!f.shippingCountry || o.shippingCountry === f.shippingCountry) &&
    (f.hasReturn === undefined || f.hasReturn === (o.fulfilment === 'returned')) &&
    (f.tags ?? []).every((t) => o.tags.includes(t))
  );
}

const byPlaced = (a: Found, b: Found) => a.placedAt.localeCompare(b.placedAt);
const SORT: Record<(typeof SORTS)[number], (a: Found, b: Found) => number> = {
  placed_desc: (a, b) => byPlaced(b, a),
  placed_asc: byPlaced,
  total_desc: (a, b) => b.total - a.total,
  total_asc: (a, b) => a.total - b.total,
};

export const orderSearch = () =>
  defineTool({
    name: 'order_search',
    version: '4',
    effect: 'read',
    description:
      'Find orders by any combination of filters (all optional, combined with AND), one page at a time. Prefer get_order when you know the customer and want their open orders; use this for support questions such as "unpaid web orders shipped to Spain last week".',
    input,
    output,
    execute: async (f) => {
      const customerId = f.customerId ?? 'cus_31';
      const all = (await fetchOrderHistory(customerId))
        .map((o, i) => detailed(customerId, o, i))
        .filter((o) => matches(o, f))
        .sort(SORT[f.sort]);
      const from = f.cursor ? Number(f.cursor) : 0;
      const to = from + f.pageSize;
      return {
        orders: all.slice(from, to),
        matched: all.length,
        nextCursor: to < all.length ? String(to) : null,
      };
    },
  });
