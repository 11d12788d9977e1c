// A WriteBatch as it crosses to the writer thread: the calls' trace and span ids are left out, since each is its
// span's (process/batch.ts makes a call's columns from its span, and batch.call names that span). The copy makes
// a new string for every string it carries: these two were 80 bytes a call that the writer thread allocated, and
// the HTTP thread serialized, twice over.
import type { CallColumns } from '../../calls/call-columns.js';
import type { WriteBatch } from '../write-batch.js';

export type PostedBatch = Omit<WriteBatch, 'calls'> & {
  calls: Omit<CallColumns, 'traceId' | 'spanId'>;
};

/** The batch to post: its call columns less the two its spans hold. */
export function postedBatch(batch: WriteBatch): PostedBatch {
  const { traceId: _traceId, spanId: _spanId, ...calls } = batch.calls;
  return { ...batch, calls };
}

/** The batch posted, whole again: each call's trace and span ids are those of the span that is the call. */
export function receivedBatch(posted: PostedBatch): WriteBatch {
  const n = posted.calls.length;
  const traceId = new Array<string>(n);
  const spanId = new Array<string>(n);
  let found = 0;
  for (let i = 0; i < posted.call.length; i++) {
    const c = posted.call[i] as number;
    if (c < 0) continue;
    traceId[c] = posted.traceIds[i] as string;
    spanId[c] = posted.spanIds[i] as string;
    found++;
  }
  // Every call is one span's: a batch where that fails is not one process/batch.ts made.
  if (found !== n) throw new Error(`a batch of ${n} calls names ${found} call spans`);
  return { ...posted, calls: { ...posted.calls, traceId, spanId } };
}
