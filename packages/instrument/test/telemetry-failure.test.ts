// Telemetry never breaks a tool: a tracer provider that throws everywhere still gets a working call.
import type { Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { describe, expect, it, vi } from 'vitest';
import { defineTool } from '../src/index.js';
import { getOrderInput, getOrderOutput, okOrders } from './fixtures.js';

const boom = () => {
  throw new Error('exporter exploded');
};

function brokenSpan(): Span {
  return new Proxy({} as Span, { get: () => boom });
}

describe('when tracing fails', () => {
  it.each([
    ['getTracer throws', { getTracer: boom } as unknown as TracerProvider],
    [
      'startSpan throws',
      { getTracer: () => ({ startSpan: boom }) as unknown as Tracer } as TracerProvider,
    ],
    [
      'every span method throws',
      { getTracer: () => ({ startSpan: brokenSpan }) as unknown as Tracer } as TracerProvider,
    ],
  ])('the tool still runs and answers its envelope (%s)', async (_label, tracerProvider) => {
    const execute = vi.fn((input: { customerId: string }) => okOrders(input.customerId));
    const tool = defineTool({
      name: 'get_order',
      version: '1',
      effect: 'read',
      description: '',
      input: getOrderInput,
      output: getOrderOutput,
      execute,
      tracerProvider,
    });
    expect(await tool.call({ customerId: 'cus_1' })).toEqual({
      ok: true,
      data: okOrders('cus_1'),
      attempt: 1,
    });
    expect(await tool.call({ customerId: 42 })).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(execute).toHaveBeenCalledTimes(1);
  });
});
