// A call crosses to the writer as named columns and comes back whole: every field columnsOf writes, callAt
// reads; and batches processed one by one and joined for one write are the batch of all their spans.
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { callSpan } from '../../test/conformance/spans.js';
import { callAt } from '../calls/call-columns.js';
import { toolCallOf } from '../calls/tool-call.js';
import { encodeSpan } from '../storage/span-codec.js';
import { sealBatch, unsealed } from '../storage/threads/sealed-batch.js';
import { processBatch } from './batch.js';
import { mergeBatches } from './merge.js';
import { spanJsonOf } from './packing.js';

describe('processBatch', () => {
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
    const batch = processBatch(spans);
    expect(batch.calls.length).toBe(2);
    spans.forEach((span, i) => {
      expect(callAt(batch.calls, i)).toEqual({
        ...toolCallOf(span),
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId,
      });
    });
    // Every column holds one value per call: none was left out of columnsOf.
    for (const [name, column] of Object.entries(batch.calls))
      if (name !== 'length') expect(column, name).toHaveLength(2);
  });
});

describe('mergeBatches', () => {
  it('joins packed batches with every index moved along', () => {
    const first = [
      callSpan({ trace: 1, span: 1 }),
      callSpan({ trace: 2, span: 1, code: 'FAILED' }),
    ];
    const second = [callSpan({ trace: 2, span: 2 }), callSpan({ trace: 3, span: 1 })];
    const all = [...first, ...second];
    const merged = mergeBatches([processBatch(first), processBatch(second)]);
    const whole = processBatch(all, false);
    expect(merged.traceIds).toEqual(whole.traceIds);
    expect(merged.spanIds).toEqual(whole.spanIds);
    expect([...merged.startNs]).toEqual([...whole.startNs]);
    expect([...merged.call]).toEqual([...whole.call]);
    expect(merged.resources.length).toBe(1);
    for (let c = 0; c < all.length; c++)
      expect(callAt(merged.calls, c)).toEqual(callAt(whole.calls, c));
    // Every column whole, each as long as the calls, and nothing else.
    expect(merged.calls).toEqual(whole.calls);
    // Each span's JSON comes back out of its own packed group.
    const jsonOf = spanJsonOf(merged);
    all.forEach((_, i) => {
      expect(jsonOf(i)).toBe(whole.json[i]);
    });
    expect(merged.packedIds).toHaveLength(4);
    // Unpacked, each span's JSON is joined in order.
    const unpacked = mergeBatches([processBatch(first, false), processBatch(second, false)]);
    expect(unpacked.json).toEqual(whole.json);
    expect(unpacked.calls).toEqual(whole.calls);
  });

  it('gives the writer one shape of batch and of call columns, joined or opened from its clone', () => {
    // V8 gives objects whose fields were added in the same order the same hidden class: the writer's optimized
    // code then meets one shape, not one per way a batch was made (docs/decisions/0082).
    const a = processBatch([callSpan({ trace: 1, span: 1 })]);
    const b = processBatch([callSpan({ trace: 2, span: 1, code: 'FAILED' })]);
    const [opened] = unsealed(sealBatch(a));
    const merged = mergeBatches([a, b]);
    if (!opened) throw new Error('nothing opened');
    expect(Object.keys(opened)).toEqual(Object.keys(merged));
    expect(Object.keys(opened.calls)).toEqual(Object.keys(merged.calls));
    // The order columnsOf makes on the HTTP thread, so the three agree.
    expect(Object.keys(merged.calls)).toEqual(Object.keys(a.calls));
  });

  it('sends the writer thread dense arrays, in every tier of V8', () => {
    // The structured clone sends a holey array in a slower form, and V8's optimized `map` makes holey arrays:
    // the batches are made until their code is optimized, and every array is checked each time.
    const first = [callSpan({ trace: 1, span: 1 }), callSpan({ trace: 2, span: 1 })];
    const second = [callSpan({ trace: 2, span: 2, code: 'FAILED' })];
    let holey = 0;
    for (let k = 0; k < 800; k++) {
      const merged = mergeBatches([processBatch(first), processBatch(second)]);
      const unpacked = mergeBatches([processBatch(first, false), processBatch(second, false)]);
      for (const b of [processBatch(first), merged, unpacked]) {
        const columns: unknown[] = [b.traceIds, b.spanIds, b.json, ...Object.values(b.calls)];
        for (const column of columns)
          if (
            Array.isArray(column) &&
            !serialize(column).equals(serialize(pushed<unknown>(column)))
          )
            holey++;
      }
    }
    expect(holey).toBe(0);
  });

  it('cuts each span out of its packed group by bytes, whatever characters its JSON holds', () => {
    // Spans of one trace interleaved with another's, with text of 1 to 4 UTF-8 bytes a character, escapes and
    // a lone surrogate: the group's spans are written one after another, and each cut where it was written.
    const texts = ['plain', 'é ✓', '😀 中文', 'a "quote"\n\u0001', 'lone \ud800', 'ü'.repeat(100)];
    const resource = { 'service.name': 'ä' };
    const spans = texts.map((text, i) => {
      const span = callSpan({
        trace: 1 + (i % 2),
        span: i + 1,
        tool: `tool_${text}`,
        issues: text,
      });
      span.statusMessage = text;
      span.resource = resource;
      return span;
    });
    const batch = processBatch(spans);
    expect(batch.json).toEqual([]);
    expect(batch.packedIds).toEqual([
      [0, 2, 4].map((i) => spans[i]?.spanId).join(' '),
      [1, 3, 5].map((i) => spans[i]?.spanId).join(' '),
    ]);
    const jsonOf = spanJsonOf(mergeBatches([processBatch(spans.slice(0, 1)), batch]));
    spans.forEach((span, i) => {
      expect(jsonOf(i + 1)).toBe(encodeSpan(span));
    });
  });
});

/**
 * A copy of `column` pushed value by value: dense whatever `column` is. Written here, not `dense` from
 * call-columns.ts: the reference must not be the code under test.
 */
function pushed<T>(column: readonly T[]): T[] {
  const out: T[] = [];
  for (const v of column) out.push(v);
  return out;
}
