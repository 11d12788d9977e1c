// The cause of a failed call and the contract a tool reports (docs/contracts.md): the exception event a thrown error
// leaves (type always, message redacted and capped, stack only with capture), the contract span sent once per
// provider and hash, and deprecation carried on every call span.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deprecationOfMcpTool } from '../src/deprecation.js';
import { defineTool, ToolscopeError } from '../src/index.js';
import * as sc from '../src/semconv.js';
import { createTracing, type Tracing } from './tracing.js';

function weatherTool(tracing: Tracing, extra: Record<string, unknown> = {}) {
  return defineTool({
    name: 'get_weather',
    version: '3',
    effect: 'read',
    description: 'Weather of a city',
    input: z.object({ city: z.string() }).strict(),
    output: z.object({ celsius: z.number() }),
    execute: async ({ city }) => {
      if (city === 'boom') throw new TypeError('backend exploded for alice@example.com');
      return { celsius: 21 };
    },
    tracerProvider: tracing.provider,
    hashKey: 'test-key',
    ...extra,
  });
}

describe('the cause of a failure', () => {
  it('records an exception event with the type and the redacted message, and no stack without capture', async () => {
    const tracing = createTracing();
    const result = await weatherTool(tracing).call({ city: 'boom' });
    expect(result.ok).toBe(false);
    const span = tracing.only();
    const events = span.events.filter((e) => e.name === sc.EVENT_EXCEPTION);
    expect(events).toHaveLength(1);
    const attrs = events[0]?.attributes ?? {};
    expect(attrs[sc.ATTR_EXCEPTION_TYPE]).toBe('TypeError');
    expect(attrs[sc.ATTR_EXCEPTION_MESSAGE]).toBe('backend exploded for [REDACTED:email]');
    expect(attrs[sc.ATTR_EXCEPTION_STACKTRACE]).toBeUndefined();
    expect(span.attributes[sc.ATTR_TOOLSCOPE_ERROR_CODE]).toBe('FAILED');
  });

  it('keeps the stack, redacted, when content capture is on; caps a long message', async () => {
    const tracing = createTracing();
    const tool = defineTool({
      name: 'long_failure',
      version: '1',
      effect: 'read',
      description: 'Fails with a long message',
      input: z.object({}),
      output: z.object({}),
      execute: () => {
        throw new Error(`x${'y'.repeat(2000)}`);
      },
      tracerProvider: tracing.provider,
      hashKey: 'test-key',
      capture: true,
    });
    await tool.call({});
    const attrs = tracing.only().events.find((e) => e.name === sc.EVENT_EXCEPTION)?.attributes;
    expect(String(attrs?.[sc.ATTR_EXCEPTION_MESSAGE]).length).toBeLessThan(
      sc.MAX_EXCEPTION_MESSAGE_CHARS + 40,
    );
    // The frame by its function's name, not its file's path: a checkout's path can hold a run the secret rules
    // mask (40 base64 characters between slashes read as an AWS secret key, as `8TrX/repo/packages/…/cause` did).
    expect(String(attrs?.[sc.ATTR_EXCEPTION_STACKTRACE])).toMatch(/\n\s+at execute \(/);
  });

  it('leaves no exception event on a success, a rejection or an invalid input', async () => {
    const tracing = createTracing();
    const tool = weatherTool(tracing);
    await tool.call({ city: 'Oslo' });
    await tool.call({ town: 'Oslo' });
    expect(tracing.spans().flatMap((s) => s.events.map((e) => e.name))).not.toContain(
      sc.EVENT_EXCEPTION,
    );
  });
});

describe('the contract span', () => {
  it('is sent once per provider and hash, as a root span with the tools/list entry', async () => {
    const tracing = createTracing();
    const tool = weatherTool(tracing);
    await tool.call({ city: 'Oslo' });
    await tool.call({ city: 'Rome' });
    const contracts = tracing.contracts();
    expect(contracts).toHaveLength(1);
    const c = contracts[0];
    expect(c?.name).toBe('tool_contract get_weather');
    expect(c?.parentSpanContext).toBeUndefined();
    expect(c?.spanContext().traceId).not.toBe(tracing.spans()[0]?.spanContext().traceId);
    expect(c?.attributes[sc.ATTR_TOOLSCOPE_CONTRACT_HASH]).toBe(tool.schemaHash);
    expect(c?.attributes[sc.ATTR_TOOLSCOPE_CONTRACT_VERSION]).toBe('3');
    const entry = JSON.parse(String(c?.attributes[sc.ATTR_TOOLSCOPE_CONTRACT_ENTRY]));
    expect(entry).toEqual({
      name: 'get_weather',
      description: 'Weather of a city',
      inputSchema: tool.inputJsonSchema,
      outputSchema: tool.outputJsonSchema,
    });
    expect(c?.attributes[sc.ATTR_TOOLSCOPE_CONTRACT_BYTES]).toBe(
      Buffer.byteLength(String(c?.attributes[sc.ATTR_TOOLSCOPE_CONTRACT_ENTRY])),
    );
    // A second provider (another exporter) gets its own copy.
    const other = createTracing();
    await weatherTool(other).call({ city: 'Oslo' });
    expect(other.contracts()).toHaveLength(1);
  });
});

describe('deprecation', () => {
  it('marks every call span with the replacement and the sunset', async () => {
    const tracing = createTracing();
    const tool = weatherTool(tracing, {
      deprecated: { replacedBy: 'get_weather_v2', sunset: '2027-03-01' },
    });
    await tool.call({ city: 'Oslo' });
    const attrs = tracing.only().attributes;
    expect(attrs[sc.ATTR_TOOLSCOPE_DEPRECATED]).toBe(true);
    expect(attrs[sc.ATTR_TOOLSCOPE_DEPRECATED_REPLACED_BY]).toBe('get_weather_v2');
    expect(attrs[sc.ATTR_TOOLSCOPE_DEPRECATED_SUNSET]).toBe('2027-03-01');
    expect(tool.deprecated).toEqual({ replacedBy: 'get_weather_v2', sunset: '2027-03-01' });
    expect(tracing.contracts()[0]?.attributes[sc.ATTR_TOOLSCOPE_DEPRECATED]).toBe(true);
  });

  it('refuses a sunset that is not a date, naming the field', () => {
    expect(() => weatherTool(createTracing(), { deprecated: { sunset: 'next spring' } })).toThrow(
      ToolscopeError,
    );
    expect(() => weatherTool(createTracing(), { deprecated: { sunset: 'next spring' } })).toThrow(
      /deprecated\.sunset/,
    );
  });
});

describe('the deprecation of a plain MCP tool', () => {
  it('reads annotations, _meta and the description, in that order', () => {
    expect(deprecationOfMcpTool({ deprecated: true }, undefined, 'Lists items')).toEqual({});
    expect(
      deprecationOfMcpTool(undefined, { 'toolscope.dev/deprecated': { replacedBy: 'b' } }, 'x'),
    ).toEqual({ replacedBy: 'b' });
    expect(
      deprecationOfMcpTool(
        undefined,
        undefined,
        'DEPRECATED — use `search_v2` instead. Removed after 2027-06-30.',
      ),
    ).toEqual({ replacedBy: 'search_v2', sunset: '2027-06-30' });
    expect(deprecationOfMcpTool(undefined, undefined, 'Deprecated.')).toEqual({});
    // Not deprecated: no word, an explicit false, or a malformed declaration (not read as deprecated).
    expect(deprecationOfMcpTool(undefined, undefined, 'Lists items')).toBeUndefined();
    expect(deprecationOfMcpTool({ deprecated: false }, undefined, 'Lists items')).toBeUndefined();
    expect(deprecationOfMcpTool({ deprecated: 'soon' }, undefined, 'Lists')).toBeUndefined();
  });
});
