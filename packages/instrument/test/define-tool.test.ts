// Specification of the call pipeline: the executor never sees invalid input, failures come back as the envelope,
// retries follow the policy in code, and nothing throws out of `.call`.
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineTool, type ToolResult } from '../src/index.js';
import {
  getOrderInput,
  getOrderOutput,
  okOrders,
  orderIntentInput,
  orderIntentOutput,
} from './fixtures.js';
import { createTracing } from './tracing.js';

function getOrderTool(
  find: (id: string) => unknown,
  extra: Partial<Parameters<typeof defineTool>[0]> = {},
) {
  const tracing = createTracing();
  const tool = defineTool({
    name: 'get_order',
    version: '1',
    effect: 'read',
    description: 'Look up the orders of one customer',
    input: getOrderInput,
    output: getOrderOutput,
    execute: async (input) => find(input.customerId) as z.input<typeof getOrderOutput>,
    tracerProvider: tracing.provider,
    hashKey: 'test-key',
    ...extra,
  } as Parameters<typeof defineTool<typeof getOrderInput, typeof getOrderOutput>>[0]);
  return { tool, tracing };
}

function expectFailure(result: ToolResult<unknown>) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

describe('input validation', () => {
  it('never calls the service with { customerId: 42 } and names the field to fix', async () => {
    const find = vi.fn();
    const { tool } = getOrderTool(find);
    const result = expectFailure(await tool.call({ customerId: 42 }));
    expect(find).not.toHaveBeenCalled();
    expect(result).toMatchObject({
      ok: false,
      code: 'INVALID_INPUT',
      retryable: false,
      partialEffect: false,
      attempt: 1,
    });
    expect(result.issues).toEqual([
      {
        path: 'customerId',
        code: 'invalid_type',
        message: 'Invalid input: expected string, received number',
      },
    ]);
    expect(JSON.stringify(result)).not.toContain('42');
  });

  it('rejects an extra key of a .strict() input by its own path', async () => {
    const find = vi.fn();
    const { tool } = getOrderTool(find);
    const result = expectFailure(await tool.call({ customerId: 'cus_1', limit: 5 }));
    expect(find).not.toHaveBeenCalled();
    expect(result.code).toBe('INVALID_INPUT');
    expect(result.issues).toEqual([
      {
        path: 'limit',
        code: 'unrecognized_keys',
        message: 'Unrecognized key: not part of the contract',
      },
    ]);
  });

  it('reports a missing required field', async () => {
    const find = vi.fn();
    const { tool } = getOrderTool(find);
    const result = expectFailure(await tool.call({ includeHistory: true }));
    expect(find).not.toHaveBeenCalled();
    expect(result.issues?.map((i) => i.path)).toEqual(['customerId']);
  });

  it('reports null input at the root', async () => {
    const find = vi.fn();
    const { tool } = getOrderTool(find);
    const result = expectFailure(await tool.call(null));
    expect(find).not.toHaveBeenCalled();
    expect(result.issues).toEqual([
      {
        path: '(root)',
        code: 'invalid_type',
        message: 'Invalid input: expected object, received null',
      },
    ]);
  });

  it('hands the executor the parsed value with defaults applied', async () => {
    const execute = vi.fn(async (input: z.output<typeof getOrderInput>) => ({
      ...okOrders(input.customerId),
      found: input.includeHistory === false,
    }));
    const tool = defineTool({
      name: 'get_order',
      version: '1',
      effect: 'read',
      description: '',
      input: getOrderInput,
      output: getOrderOutput,
      execute,
      tracerProvider: createTracing().provider,
    });
    const result = await tool.call({ customerId: 'cus_1' });
    expect(execute).toHaveBeenCalledWith(
      { customerId: 'cus_1', includeHistory: false },
      expect.anything(),
    );
    expect(result).toEqual({ ok: true, data: okOrders('cus_1'), attempt: 1 });
  });
});

describe('output validation', () => {
  it('turns an unknown enum value from the service into INVALID_OUTPUT without the value', async () => {
    const { tool } = getOrderTool(() => ({
      found: true,
      customerId: 'cus_1',
      orders: [{ id: 'ord_1', status: 'refunded' }],
    }));
    const result = expectFailure(await tool.call({ customerId: 'cus_1' }));
    expect(result).toMatchObject({
      code: 'INVALID_OUTPUT',
      retryable: false,
      partialEffect: false,
    });
    expect(result.issues).toEqual([
      {
        path: 'orders.0.status',
        code: 'invalid_value',
        message: 'Invalid option: expected one of "pending"|"paid"|"cancelled"',
      },
    ]);
    expect(JSON.stringify(result)).not.toContain('refunded');
  });
});

describe('errors and retries', () => {
  it('retries a transient read failure within the cap and succeeds', async () => {
    let calls = 0;
    const { tool, tracing } = getOrderTool(
      () => {
        calls++;
        if (calls < 3) throw Object.assign(new Error('upstream busy'), { status: 503 });
        return okOrders('cus_1');
      },
      { retry: { maxAttempts: 3, backoffMs: 1, jitter: false } },
    );
    const result = await tool.call({ customerId: 'cus_1' });
    expect(result).toEqual({ ok: true, data: okOrders('cus_1'), attempt: 3 });
    expect(calls).toBe(3);
    const span = tracing.only();
    expect(span.attributes['toolscope.attempt']).toBe(3);
    expect(
      span.events.map((e) => [
        e.name,
        e.attributes?.['toolscope.attempt'],
        e.attributes?.['toolscope.error.code'],
      ]),
    ).toEqual([
      ['toolscope.attempt.failed', 1, 'RETRYABLE'],
      ['toolscope.attempt.failed', 2, 'RETRYABLE'],
    ]);
  });

  it('stops at the cap and answers RETRYABLE with retryable: true', async () => {
    const find = vi.fn(() => {
      throw Object.assign(new Error('slow down'), { status: 429 });
    });
    const { tool } = getOrderTool(find, { retry: { maxAttempts: 2, backoffMs: 1, jitter: false } });
    const result = expectFailure(await tool.call({ customerId: 'cus_1' }));
    expect(find).toHaveBeenCalledTimes(2);
    expect(result).toMatchObject({
      code: 'RETRYABLE',
      reason: 'rate_limited',
      retryable: true,
      attempt: 2,
      partialEffect: false,
    });
    expect(result.message).not.toContain('slow down');
  });

  it('does not retry a write that timed out without an idempotency key and flags a possible partial effect', async () => {
    const tracing = createTracing();
    const execute = vi.fn(() => new Promise<never>(() => {}));
    const tool = defineTool({
      name: 'order_intent',
      version: '1',
      effect: 'write',
      description: 'Create an order intent',
      input: orderIntentInput,
      output: orderIntentOutput,
      execute,
      timeoutMs: 20,
      retry: { maxAttempts: 5, backoffMs: 1 },
      tracerProvider: tracing.provider,
    });
    const result = expectFailure(await tool.call({ sku: 'sku_1', quantity: 1 }));
    expect(execute).toHaveBeenCalledTimes(1);
    expect(result).toMatchObject({
      code: 'RETRYABLE',
      reason: 'timeout',
      retryable: false,
      partialEffect: true,
      attempt: 1,
    });
    expect(result.message).toMatch(/may have been applied/);
    expect(tracing.only().attributes['toolscope.partial_effect']).toBe(true);
  });

  it('aborts the executor signal on timeout', async () => {
    let seen: AbortSignal | undefined;
    const { tool } = getOrderTool(() => undefined, {
      timeoutMs: 10,
      execute: (_input: unknown, ctx: { signal: AbortSignal }) =>
        new Promise((_, reject) => {
          seen = ctx.signal;
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        }),
    });
    const result = expectFailure(await tool.call({ customerId: 'cus_1' }));
    expect(result.code).toBe('RETRYABLE');
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error | undefined)?.name).toBe('TimeoutError');
  });

  it('retries a write with an idempotency key, passing the key to the executor', async () => {
    const keys: Array<string | undefined> = [];
    const tool = defineTool({
      name: 'order_intent',
      version: '1',
      effect: 'write',
      description: '',
      input: orderIntentInput,
      output: orderIntentOutput,
      retry: { maxAttempts: 3, backoffMs: 1, jitter: false },
      tracerProvider: createTracing().provider,
      execute: (_input, ctx) => {
        keys.push(ctx.idempotencyKey);
        if (ctx.attempt === 1) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
        return { intentId: 'int_1', status: 'created' as const };
      },
    });
    const result = await tool.call({ sku: 'a', quantity: 1 }, { idempotencyKey: 'k-1' });
    expect(result).toEqual({
      ok: true,
      data: { intentId: 'int_1', status: 'created' },
      attempt: 2,
    });
    expect(keys).toEqual(['k-1', 'k-1']);
  });

  it('does not retry REJECTED and keeps the author reason and message', async () => {
    const execute = vi.fn((_input: unknown, ctx: { reject: (r: string, m: string) => unknown }) =>
      ctx.reject('not_found', 'No customer cus_9'),
    );
    const { tool } = getOrderTool(() => undefined, {
      execute,
      retry: { maxAttempts: 3, backoffMs: 1 },
    });
    const result = expectFailure(await tool.call({ customerId: 'cus_9' }));
    expect(execute).toHaveBeenCalledTimes(1);
    expect(result).toEqual({
      ok: false,
      code: 'REJECTED',
      reason: 'not_found',
      message: 'No customer cus_9',
      retryable: false,
      partialEffect: false,
      attempt: 1,
    });
  });

  it('classifies other errors as FAILED without leaking their message', async () => {
    const { tool, tracing } = getOrderTool(() => {
      throw new Error('connect postgres://admin:hunter2@db failed');
    });
    const result = expectFailure(await tool.call({ customerId: 'cus_1' }));
    expect(result).toMatchObject({ code: 'FAILED', retryable: false, partialEffect: false });
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(JSON.stringify(tracing.only().attributes)).not.toContain('hunter2');
  });

  it('lets a classify option override the default', async () => {
    const { tool } = getOrderTool(
      () => {
        throw new Error('quota');
      },
      { classify: () => ({ code: 'REJECTED', reason: 'quota_exceeded' }) },
    );
    const result = expectFailure(await tool.call({ customerId: 'cus_1' }));
    expect(result).toMatchObject({ code: 'REJECTED', reason: 'quota_exceeded', retryable: false });
  });

  it('marks a partial effect reported by the executor', async () => {
    const { tool } = getOrderTool(() => undefined, {
      execute: (_input: unknown, ctx: { markPartialEffect: () => void }) => {
        ctx.markPartialEffect();
        throw new Error('half done');
      },
    });
    expect(expectFailure(await tool.call({ customerId: 'cus_1' })).partialEffect).toBe(true);
  });

  it('stops when the caller aborts and does not retry', async () => {
    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const find = vi.fn(() => {
      started();
      return new Promise<never>(() => {});
    });
    const { tool } = getOrderTool(find, { retry: { maxAttempts: 5, backoffMs: 1 } });
    const pending = tool.call({ customerId: 'cus_1' }, { signal: controller.signal });
    await running;
    controller.abort();
    const result = expectFailure(await pending);
    expect(result).toMatchObject({ code: 'RETRYABLE', reason: 'aborted' });
    expect(find).toHaveBeenCalledTimes(1);
  });
});

describe('never throws', () => {
  it('does not run the executor when the caller aborted before dispatch', async () => {
    const find = vi.fn();
    const { tool } = getOrderTool(find);
    const result = expectFailure(
      await tool.call({ customerId: 'cus_1' }, { signal: AbortSignal.abort() }),
    );
    expect(result).toMatchObject({ code: 'RETRYABLE', reason: 'aborted', partialEffect: false });
    expect(find).not.toHaveBeenCalled();
  });

  it('answers FAILED for bad call options instead of throwing', async () => {
    const { tool } = getOrderTool(() => okOrders('x'));
    const result = expectFailure(await tool.call({ customerId: 'x' }, { attempt: -1 } as never));
    expect(result.code).toBe('FAILED');
  });

  it('answers FAILED when a refinement itself throws', async () => {
    const tool = defineTool({
      name: 't',
      version: '1',
      effect: 'read',
      description: '',
      tracerProvider: createTracing().provider,
      input: z.object({ a: z.string() }).refine(() => {
        throw new Error('bug');
      }),
      output: z.object({}),
      execute: () => ({}),
    });
    expect(expectFailure(await tool.call({ a: 'x' })).code).toBe('FAILED');
  });

  it('rejects a broken definition at startup with a precise message', () => {
    expect(() =>
      defineTool({
        name: 'bad name!',
        version: '',
        effect: 'read',
        description: '',
        input: z.object({}),
        output: z.object({}),
        execute: () => ({}),
      }),
    ).toThrow(/name: use 1–128 letters.*version/);
    expect(() =>
      defineTool({
        name: 'typo',
        version: '1',
        effect: 'read',
        description: '',
        input: z.object({}),
        output: z.object({}),
        retry: { maxAttempts: 3, baseDelayMs: 10 } as never,
        execute: () => ({}),
      }),
    ).toThrow(/retry: Unrecognized key: "baseDelayMs"/);
  });
});
