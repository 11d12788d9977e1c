// Idempotent writes: a completed key replays its stored outcome without executing again.
import { describe, expect, it, vi } from 'vitest';
import { defineTool, type IdempotencyStore, MemoryIdempotencyStore } from '../src/index.js';
import { orderIntentInput, orderIntentOutput } from './fixtures.js';
import { createTracing } from './tracing.js';

function orderIntent(store?: IdempotencyStore) {
  const tracing = createTracing();
  let n = 0;
  const execute = vi.fn(async () => ({ intentId: `int_${++n}`, status: 'created' as const }));
  const tool = defineTool({
    name: 'order_intent',
    version: '1',
    effect: 'write',
    description: 'Create an order intent',
    input: orderIntentInput,
    output: orderIntentOutput,
    execute,
    tracerProvider: tracing.provider,
    ...(store ? { idempotencyStore: store } : {}),
  });
  return { tool, execute, tracing };
}

describe('idempotency keys', () => {
  it('executes once and replays the stored result for the same key', async () => {
    const { tool, execute, tracing } = orderIntent();
    const first = await tool.call({ sku: 'a', quantity: 2 }, { idempotencyKey: 'key-1' });
    const second = await tool.call(
      { sku: 'a', quantity: 2 },
      { idempotencyKey: 'key-1', attempt: 2 },
    );
    expect(execute).toHaveBeenCalledTimes(1);
    expect(first).toEqual({ ok: true, data: { intentId: 'int_1', status: 'created' }, attempt: 1 });
    expect(second).toEqual({
      ok: true,
      data: { intentId: 'int_1', status: 'created' },
      attempt: 2,
    });
    const [a, b] = tracing.spans();
    expect(a?.attributes['toolscope.idempotent_replay']).toBeUndefined();
    expect(b?.attributes['toolscope.idempotent_replay']).toBe(true);
  });

  it('runs concurrent calls with one key once', async () => {
    const { tool, execute } = orderIntent();
    const results = await Promise.all(
      [1, 2, 3].map(() => tool.call({ sku: 'a', quantity: 1 }, { idempotencyKey: 'same' })),
    );
    expect(execute).toHaveBeenCalledTimes(1);
    for (const r of results) expect(r).toMatchObject({ ok: true, data: { intentId: 'int_1' } });
  });

  it('executes again for a different key', async () => {
    const { tool, execute } = orderIntent();
    await tool.call({ sku: 'a', quantity: 1 }, { idempotencyKey: 'k1' });
    await tool.call({ sku: 'a', quantity: 1 }, { idempotencyKey: 'k2' });
    expect(execute).toHaveBeenCalledTimes(2);
  });

  it('refuses a key reused with a different request', async () => {
    const { tool, execute } = orderIntent();
    await tool.call({ sku: 'a', quantity: 1 }, { idempotencyKey: 'k1' });
    const reused = await tool.call({ sku: 'b', quantity: 1 }, { idempotencyKey: 'k1' });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(reused).toMatchObject({
      ok: false,
      code: 'REJECTED',
      reason: 'idempotency_key_reused',
      retryable: false,
    });
  });

  it('does not remember a failure, so the same key can be retried', async () => {
    const tracing = createTracing();
    let fail = true;
    const execute = vi.fn(async () => {
      if (fail) throw new Error('boom');
      return { intentId: 'int_ok', status: 'created' as const };
    });
    const tool = defineTool({
      name: 'w',
      version: '1',
      effect: 'write',
      description: '',
      input: orderIntentInput,
      output: orderIntentOutput,
      execute,
      tracerProvider: tracing.provider,
    });
    expect(await tool.call({ sku: 'a', quantity: 1 }, { idempotencyKey: 'k' })).toMatchObject({
      ok: false,
      code: 'FAILED',
      partialEffect: true,
    });
    fail = false;
    expect(await tool.call({ sku: 'a', quantity: 1 }, { idempotencyKey: 'k' })).toMatchObject({
      ok: true,
      data: { intentId: 'int_ok' },
    });
    expect(execute).toHaveBeenCalledTimes(2);
  });

  it('answers RETRYABLE without executing when the store cannot be read', async () => {
    const store: IdempotencyStore = {
      get: () => Promise.reject(new Error('redis down')),
      set: () => undefined,
    };
    const { tool, execute } = orderIntent(store);
    const result = await tool.call({ sku: 'a', quantity: 1 }, { idempotencyKey: 'k' });
    expect(execute).not.toHaveBeenCalled();
    expect(result).toMatchObject({
      ok: false,
      code: 'RETRYABLE',
      reason: 'idempotency_store_unavailable',
      retryable: true,
      partialEffect: false,
    });
  });

  it('ignores a malformed record from an external store instead of trusting it', async () => {
    const store: IdempotencyStore = { get: () => ({ inputDigest: 5 }), set: () => undefined };
    const { tool, execute } = orderIntent(store);
    expect(await tool.call({ sku: 'a', quantity: 1 }, { idempotencyKey: 'k' })).toMatchObject({
      ok: true,
    });
    expect(execute).toHaveBeenCalledTimes(1);
  });
});

describe('MemoryIdempotencyStore', () => {
  const record = {
    inputDigest: 'd',
    storedAt: 0,
    outcome: { kind: 'ok' as const, output: 1, attempt: 1 },
  };

  it('expires entries after the TTL (24 h by default)', () => {
    let now = 0;
    const store = new MemoryIdempotencyStore({ now: () => now });
    store.set('a', record, 24 * 3600_000);
    now = 24 * 3600_000 - 1;
    expect(store.get('a')).toEqual(record);
    now = 24 * 3600_000;
    expect(store.get('a')).toBeUndefined();
  });

  it('stays within maxEntries, dropping the oldest first', () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 2 });
    store.set('a', record, 1000);
    store.set('b', record, 1000);
    store.set('c', record, 1000);
    expect(store.size).toBe(2);
    expect(store.get('a')).toBeUndefined();
    expect(store.get('c')).toEqual(record);
  });
});
