// The regression-fixture helper (`@toolscope/instrument/fixtures`): inputs synthesized from recorded shapes, the
// outcome rule, cases judged against a failing and a fixed contract, "not reproduced" where only a synthesized
// value could explain a difference, and the output that broke a contract recorded on the span when capture is on.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  compareOutcome,
  type FixtureCase,
  fixtureCaseSchema,
  judgeCase,
  meetsExpectation,
  parseFixtures,
  parseShape,
  synthesizeInput,
} from '../src/fixtures/index.js';
import { defineTool } from '../src/index.js';
import { inputShape } from '../src/input-shape.js';
import { ATTR_TOOLSCOPE_OUTPUT_REJECTED } from '../src/semconv.js';
import { createTracing } from './tracing.js';

describe('synthesizeInput', () => {
  it('gives every recorded path a value of its JSON type, plain at the failing paths', () => {
    const shape = inputShape({
      customerId: 42,
      note: 'x',
      items: [{ sku: 'a', qty: 2 }],
      tags: [],
    });
    expect(synthesizeInput(shape, ['customerId'])).toEqual({
      customerId: 0,
      items: [{ qty: 1, sku: 'sample' }],
      note: 'sample',
      tags: [],
    });
    expect(synthesizeInput(shape, ['items.0.sku'])).toMatchObject({ items: [{ sku: '' }] });
  });

  it('reads quoted keys, roots and mixed types, and leaves out what it cannot read', () => {
    const shape = inputShape({ 'a,b:c': true, n: null, m: [1, 'x'] });
    expect(parseShape(shape).map((p) => p.steps)).toEqual([
      [{ key: 'a,b:c' }],
      [{ key: 'm' }, { item: true }],
      [{ key: 'n' }],
    ]);
    expect(synthesizeInput(shape)).toEqual({ 'a,b:c': true, m: [1], n: null });
    expect(synthesizeInput(inputShape({}))).toEqual({});
    expect(synthesizeInput(inputShape('text'))).toBe('sample');
    expect(synthesizeInput('garbage without a colon')).toBeUndefined();
  });

  it('never copies a recorded value: only types reach the synthesized input', () => {
    const secret = 'sk_live_51Hx9QabcdefghijKLMN';
    const v = JSON.stringify(synthesizeInput(inputShape({ apiKey: secret, n: 4242424242424242 })));
    expect(v).not.toContain(secret);
    expect(v).not.toContain('4242');
  });
});

describe('compareOutcome and meetsExpectation', () => {
  const failed = {
    ok: false,
    code: 'INVALID_INPUT',
    issuePaths: ['customerId'],
    retryable: false,
    partialEffect: false,
    reason: null,
  };
  const ok = { ...failed, ok: true, code: null, issuePaths: [] };
  it('names same, fixed, changed and new failure', () => {
    expect(
      compareOutcome(failed, { ok: false, code: 'INVALID_INPUT', issuePaths: ['customerId'] }),
    ).toBe('same');
    expect(compareOutcome(failed, { ok: false, code: 'INVALID_INPUT', issuePaths: null })).toBe(
      'same',
    );
    expect(
      compareOutcome(failed, { ok: false, code: 'INVALID_INPUT', issuePaths: ['other'] }),
    ).toBe('changed');
    expect(compareOutcome(failed, { ok: false, code: 'FAILED', issuePaths: null })).toBe('changed');
    expect(compareOutcome(failed, { ok: true })).toBe('fixed');
    expect(compareOutcome(ok, { ok: true })).toBe('same');
    expect(compareOutcome(ok, { ok: false, code: 'FAILED', issuePaths: null })).toBe('new failure');
  });
  it('meets `recorded` only when the same, `fixed` only when the failure is gone', () => {
    expect(meetsExpectation('same', failed, 'recorded')).toBe(true);
    expect(meetsExpectation('fixed', failed, 'recorded')).toBe(false);
    expect(meetsExpectation('fixed', failed, 'fixed')).toBe(true);
    expect(meetsExpectation('same', failed, 'fixed')).toBe(false);
    expect(meetsExpectation('changed', failed, 'fixed')).toBe(false);
    expect(meetsExpectation('same', ok, 'fixed')).toBe(true);
  });
});

const order = z.object({ id: z.string(), status: z.enum(['pending', 'paid']) });
function getOrder(fixed: boolean) {
  return defineTool({
    name: 'get_order',
    version: '2',
    effect: 'read',
    description: 'Orders of one customer',
    input: z
      .object({
        customerId: fixed ? z.union([z.string().min(1), z.number().int()]) : z.string().min(1),
      })
      .strict(),
    output: z.object({
      orders: z.array(
        fixed ? order.extend({ status: z.enum(['pending', 'paid', 'on_hold']) }) : order,
      ),
    }),
    hashKey: 'k',
    execute: ({ customerId }) => ({
      orders: [
        {
          id: `o_${customerId}`,
          // An upstream that answers a status the failing contract does not know.
          status: (String(customerId).startsWith('cus_9') ? 'on_hold' : 'paid') as 'paid',
        },
      ],
    }),
  });
}
const failing = getOrder(false);
const fixed = getOrder(true);

function caseOf(over: Partial<FixtureCase>): FixtureCase {
  return fixtureCaseSchema.parse({
    id: 'c1',
    title: 'a case',
    origin: {
      traceId: 't',
      spanId: 's',
      time: '2026-12-01T00:00:00.000Z',
      conversationId: null,
      service: null,
      source: 'toolscope',
    },
    tool: { name: 'get_order', version: '2', schemaHash: failing.schemaHash, effect: 'read' },
    input: null,
    output: null,
    expected: {
      ok: true,
      code: null,
      issuePaths: [],
      retryable: null,
      partialEffect: null,
      reason: null,
    },
    ...over,
  });
}
const invalidInput = caseOf({
  input: {
    synthesized: true,
    redacted: false,
    shape: 'customerId:number',
    value: synthesizeInput('customerId:number', ['customerId']),
  },
  expected: {
    ok: false,
    code: 'INVALID_INPUT',
    issuePaths: ['customerId'],
    retryable: false,
    partialEffect: false,
    reason: null,
  },
});
const invalidOutput = caseOf({
  input: {
    synthesized: false,
    redacted: false,
    shape: 'customerId:string',
    value: { customerId: 'cus_901' },
  },
  output: { redacted: false, value: { orders: [{ id: 'o1', status: 'on_hold' }] } },
  expected: {
    ok: false,
    code: 'INVALID_OUTPUT',
    issuePaths: ['orders.0.status'],
    retryable: false,
    partialEffect: false,
    reason: null,
  },
});

describe('judgeCase', () => {
  it('passes against the failing version and reports the change against the fixed one (--expect recorded)', async () => {
    for (const c of [invalidInput, invalidOutput]) {
      expect(await judgeCase(failing, c)).toMatchObject({ status: 'pass' });
      const v = await judgeCase(fixed, c);
      expect(v.status).toBe('fail');
      expect(v.message).toMatch(/: fixed.*expected the recorded outcome/);
    }
  });

  it('passes against the fixed version and fails against the failing one (--expect fixed)', async () => {
    for (const c of [invalidInput, invalidOutput]) {
      expect(await judgeCase(fixed, c, { expect: 'fixed' })).toMatchObject({ status: 'pass' });
      expect(await judgeCase(failing, c, { expect: 'fixed' })).toMatchObject({ status: 'fail' });
    }
  });

  it('says "not reproduced" (a skip) when only the synthesized value differs under the recorded contract', async () => {
    // The call failed on an empty string; its synthesized input is a number, which the same contract also refuses
    // but at no other path: same. A success whose synthesized string breaks min(1) cannot be told apart.
    const okCase = caseOf({
      input: {
        synthesized: true,
        redacted: false,
        shape: 'customerId:string',
        value: { customerId: '' },
      },
    });
    const v = await judgeCase(failing, okCase);
    expect(v.status).toBe('skip');
    expect(v.message).toMatch(/^not reproduced: the contract is the recorded one/);
    expect((await judgeCase(failing, okCase, { expect: 'fixed' })).status).toBe('skip');
  });

  it('runs the executor only for cases that opt in', async () => {
    const viaExecutor = { ...invalidOutput, output: null };
    expect((await judgeCase(failing, viaExecutor)).message).toMatch(/set "execute": true/);
    const opted = { ...viaExecutor, execute: true };
    expect(await judgeCase(failing, opted)).toMatchObject({ status: 'pass' });
    expect(await judgeCase(fixed, opted)).toMatchObject({ status: 'fail' });
  });
});

describe('the fixture file and the recorded output', () => {
  it('refuses a file of another format version or shape, naming the problem', () => {
    expect(() => parseFixtures('{"formatVersion":2}', 'x.json')).toThrow(/formatVersion 2/);
    expect(() =>
      parseFixtures('{"formatVersion":1,"tool":"t","from":{"trace":"a"}}', 'x.json'),
    ).toThrow(/cases/);
    expect(() => parseFixtures('not json', 'x.json')).toThrow(/not JSON/);
  });

  it('records the output that broke the contract, redacted, only with capture on', async () => {
    const tracing = createTracing();
    const tool = defineTool({
      name: 'get_order',
      version: '2',
      effect: 'read',
      description: 'Orders',
      input: z.object({ customerId: z.string() }),
      output: z.object({ status: z.enum(['paid']), contact: z.string() }),
      tracerProvider: tracing.provider,
      hashKey: 'k',
      execute: () => ({ status: 'on_hold' as 'paid', contact: 'ana.lima@example.com' }),
    });
    await tool.call({ customerId: 'a' }, { capture: true });
    await tool.call({ customerId: 'b' }, { capture: false });
    const [captured, plain] = tracing.spans();
    const rejected = captured?.attributes[ATTR_TOOLSCOPE_OUTPUT_REJECTED];
    expect(JSON.parse(String(rejected))).toEqual({
      status: 'on_hold',
      contact: '[REDACTED:email]',
    });
    expect(plain?.attributes[ATTR_TOOLSCOPE_OUTPUT_REJECTED]).toBeUndefined();
  });
});
