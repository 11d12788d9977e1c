// Batches sealed as they are queued come back whole on the writer's side: sealed one by one, joined for one
// write, moved (not copied) to another thread and opened there, they are the write the process stage's merge
// makes of the batches themselves.
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { callSpan } from '../../../test/conformance/spans.js';
import { processBatch } from '../../process/batch.js';
import { mergeBatches } from '../../process/merge.js';
import { batchOf, isSealed, joinSealed, sealBatch, transferable } from './sealed-batch.js';

const first = [
  callSpan({ trace: 1, span: 1, code: 'INVALID_INPUT', conversation: 'c' }),
  callSpan({ trace: 2, span: 1, parent: 7, callId: 'k', resultTokens: 12 }),
];
const second = [callSpan({ trace: 2, span: 2 }), callSpan({ trace: 3, span: 1, proxy: true })];

describe('sealed batches', () => {
  it('open, after a move to another thread, as the merge of the batches sealed', () => {
    const sealed = joinSealed([sealBatch(processBatch(first)), sealBatch(processBatch(second))]);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed.sealed).toHaveLength(2);
    const buffers = transferable(sealed);
    expect(buffers).toHaveLength(2);

    const { port1, port2 } = new MessageChannel();
    port1.postMessage({ sealed: sealed.sealed }, buffers);
    // Moved: nothing of them is left on this side.
    expect(sealed.sealed.map((bytes) => bytes.byteLength)).toEqual([0, 0]);
    const received = receiveMessageOnPort(port2)?.message as { sealed: Uint8Array[] };
    port1.close();

    const opened = batchOf({ sealed: received.sealed }, mergeBatches);
    const expected = mergeBatches([processBatch(first), processBatch(second)]);
    expect(opened.traceIds).toEqual(expected.traceIds);
    expect(opened.spanIds).toEqual(expected.spanIds);
    expect([...opened.startNs]).toEqual([...expected.startNs]);
    expect([...opened.call]).toEqual([...expected.call]);
    expect(opened.calls).toEqual(expected.calls);
    expect(opened.resources).toEqual(expected.resources);
    expect(Buffer.from(opened.packed?.bytes ?? [])).toEqual(
      Buffer.from(expected.packed?.bytes ?? []),
    );
    expect([...(opened.packed?.ends ?? [])]).toEqual([...(expected.packed?.ends ?? [])]);
  });

  it('leaves a processed batch as it is, and joins one write of one batch without copying it', () => {
    const batch = processBatch(first);
    expect(batchOf(batch, mergeBatches)).toBe(batch);
    const one = sealBatch(batch);
    expect(joinSealed([one])).toBe(one);
  });
});
