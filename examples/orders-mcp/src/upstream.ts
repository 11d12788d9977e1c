// A fake order and catalogue backend with the behaviours the demo needs, chosen by the data so the scripted
// agent can reach each one: a customer whose first lookup fails with 503, customers whose orders come back
// with a status the contract does not know (an upstream that changed), an out-of-stock item, and a slow
// write that is applied but not confirmed in time.

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

const flakySeen = new Set<string>();
const intents = new Map<string, { sku: string; quantity: number }>();
let nextIntent = 1;

export type UpstreamOrder = { id: string; status: string; total: number };

export async function fetchOrders(customerId: string): Promise<UpstreamOrder[]> {
  await pause(2 + Math.random() * 6);
  if (customerId.startsWith('cus_flaky') && !flakySeen.has(customerId)) {
    flakySeen.add(customerId);
    throw new UpstreamError('orders service busy', 503);
  }
  // The orders service rolled out a new status the tool's contract does not list.
  const status = customerId.startsWith('cus_9') ? 'on_hold' : 'paid';
  return [{ id: `ord_${customerId.slice(4)}_1`, status, total: 42.5 }];
}

export type PastOrder = {
  id: string;
  placedAt: string;
  status: string;
  total: number;
  items: { sku: string; quantity: number }[];
};

const HISTORY_SIZE = 400;
const SKUS = ['sku_mug', 'sku_lamp', 'sku_chair', 'sku_desk', 'sku_shelf'];

/**
 * Every past order of a customer, newest first: a long-standing account has hundreds. Deterministic, so the
 * demo's sizes are the same on every run.
 */
export async function fetchOrderHistory(customerId: string): Promise<PastOrder[]> {
  await pause(2 + Math.random() * 4);
  const day = 86_400_000;
  const start = Date.UTC(2026, 10, 1);
  return Array.from({ length: HISTORY_SIZE }, (_, i) => ({
    id: `ord_${customerId.slice(4)}_${String(HISTORY_SIZE - i).padStart(4, '0')}`,
    placedAt: new Date(start - i * day).toISOString(),
    status: i === 0 ? 'pending' : 'delivered',
    total: Math.round((15 + ((i * 37) % 180)) * 100) / 100,
    items: [{ sku: SKUS[i % SKUS.length] as string, quantity: 1 + (i % 3) }],
  }));
}

export type CatalogueItem = { sku: string; name: string; price: number };

const CATALOGUE: CatalogueItem[] = [
  { sku: 'sku_mug', name: 'Mug', price: 9 },
  { sku: 'sku_lamp', name: 'Desk lamp', price: 45 },
  { sku: 'sku_chair', name: 'Chair', price: 180 },
  { sku: 'sku_gone', name: 'Sold-out kettle', price: 30 },
];

export async function listCatalogue(min: number, max: number): Promise<CatalogueItem[]> {
  await pause(1 + Math.random() * 4);
  return CATALOGUE.filter((i) => i.price >= min && i.price <= max);
}

export function inStock(sku: string): boolean {
  return sku !== 'sku_gone';
}

export async function createIntent(
  sku: string,
  quantity: number,
  signal: AbortSignal,
): Promise<{ intentId: string }> {
  const id = `int_${nextIntent++}`;
  // The write is applied at once; confirming it is what is slow for some items.
  intents.set(id, { sku, quantity });
  await pause(sku === 'sku_slow' ? 2_000 : 3, signal);
  return { intentId: id };
}

export function intentCount(): number {
  return intents.size;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
