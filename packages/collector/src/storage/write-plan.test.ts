// A call crosses to the writer as named columns and comes back whole: every field pushCall writes, callAt reads.
import { describe, expect, it } from 'vitest';
import { callSpan } from '../../test/conformance/spans.js';
import { toolCallOf } from '../calls/tool-call.js';
import { callAt, planWrite } from './write-plan.js';

describe('planWrite', () => {
  it('keeps every field of each call through the columns', () => {
    const spans = [
      callSpan({
        trace: 1,
        span: 1,
        code: 'INVALID_INPUT',
        conversation: 'c',
        callId: 'k',
        proxy: true,
      }),
      callSpan({ trace: 1, span: 2, parent: 1, outputHash: 'ab'.repeat(8), resultTokens: 12 }),
    ];
    const plan = planWrite(spans);
    expect(plan.calls.length).toBe(2);
    spans.forEach((span, i) => {
      expect(callAt(plan.calls, i)).toEqual({
        ...toolCallOf(span),
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId,
      });
    });
    // Every column holds one value per call: none was left out of pushCall.
    for (const [name, column] of Object.entries(plan.calls))
      if (name !== 'length') expect(column, name).toHaveLength(2);
  });
});
