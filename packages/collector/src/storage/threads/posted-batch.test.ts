// A batch posted to a writer thread comes back whole through the structured clone: every column of its spans and
// calls, coded or not, in order.
import { describe, expect, it } from 'vitest';
import { callSpan } from '../../../test/conformance/spans.js';
import { processBatch } from '../../process/batch.js';
import { coded, decoded, postedBatch, receivedBatch } from './posted-batch.js';

describe('postedBatch', () => {
  it('codes repeated columns and leaves distinct ones, and the clone gives back the batch', () => {
    // Four traces of three calls each: the trace ids, tools and conversations repeat, the inputs do not.
    const spans = [1, 2, 3, 4].flatMap((trace) =>
      [1, 2, 3].map((span) =>
        callSpan({
          trace,
          span,
          tool: span === 3 ? 'refund' : 'get_order',
          conversation: `c${trace % 2}`,
          ...(span === 2 ? { code: 'FAILED' } : {}),
          ...(span > 1 ? { parent: 1 } : {}),
        }),
      ),
    );
    const batch = processBatch(spans);
    const posted = postedBatch(batch);
    expect(Array.isArray(posted.traceIds)).toBe(false);
    expect(Array.isArray(posted.calls.tool)).toBe(false);
    expect(Array.isArray(posted.calls.conversationId)).toBe(false);
    // Every input differs: sent as it is.
    expect(Array.isArray(posted.calls.inputHash)).toBe(true);
    // The batch posted is not changed by posting it.
    expect(batch.calls.traceId).toHaveLength(12);
    const back = receivedBatch(structuredClone(posted));
    // The packed Buffer arrives as the Uint8Array of its bytes (the writers take either).
    expect(Buffer.from(back.packed?.bytes ?? [])).toEqual(batch.packed?.bytes);
    expect({ ...back, packed: back.packed?.ends }).toEqual({
      ...batch,
      packed: batch.packed?.ends,
    });
  });

  it('codes a column only when at most half its rows are distinct, nulls among the values', () => {
    expect(coded(['a', 'b', 'c', 'a'])).toEqual(['a', 'b', 'c', 'a']);
    const column = ['a', null, 'a', null, 'b', 'a'];
    const c = coded(column);
    expect(Array.isArray(c)).toBe(false);
    expect(decoded(c)).toEqual(column);
    expect(decoded(coded([]))).toEqual([]);
  });
});
