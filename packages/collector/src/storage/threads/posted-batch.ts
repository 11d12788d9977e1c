// A WriteBatch as it crosses to the writer thread. The structured clone writes every string it meets and the
// writer thread makes each one anew, even when the batch repeats it (a trace's id on each of its spans, a tool's
// name on each of its calls), and the strings were most of what the writer allocated per span. So:
// - the calls' trace and span ids are left out, since each is its span's (process/batch.ts makes a call's
//   columns from its span, and batch.call names that span);
// - the spans' trace ids and the call columns whose values repeat go as their distinct values once each, with
//   each row's index into them (coded). A column of values that mostly differ (hashes, call ids) goes as it is.
// docs/decisions/0069-the-load-generator-and-the-merge.md has the measurement.
import { type CallColumns, shapedColumns } from '../../calls/call-columns.js';
import { type WriteBatch, writeBatch } from '../write-batch.js';

/** A column as its distinct values, each once, and each row's index into them. */
export type CodedColumn<T> = { values: T[]; at: Int32Array };

/** The call columns that may be coded: names, versions, outcomes and a conversation's id repeat across calls. */
const CODED_CALLS = [
  'parentSpanId',
  'tool',
  'version',
  'schemaHash',
  'code',
  'errorType',
  'reason',
  'effect',
  'issues',
  'inputShape',
  'conversationId',
  'service',
  'source',
  'clientName',
  'clientVersion',
  'exceptionType',
] as const satisfies readonly (keyof CallColumns)[];
type CodedField = (typeof CODED_CALLS)[number];

type PostedCalls = Omit<CallColumns, 'traceId' | 'spanId' | CodedField> & {
  [K in CodedField]: CallColumns[K] | CodedColumn<CallColumns[K][number]>;
};

export type PostedBatch = Omit<WriteBatch, 'calls' | 'traceIds'> & {
  traceIds: string[] | CodedColumn<string>;
  calls: PostedCalls;
};

/**
 * `column` coded when that sends fewer strings: at most half as many distinct values as rows (a batch whose
 * values mostly differ would pay for the coding and save nothing).
 */
export function coded<T>(column: T[]): T[] | CodedColumn<T> {
  const values: T[] = [];
  const index = new Map<T, number>();
  const at = new Int32Array(column.length);
  const most = column.length / 2;
  for (let i = 0; i < column.length; i++) {
    const v = column[i] as T;
    let k = index.get(v);
    if (k === undefined) {
      if (values.length >= most) return column;
      k = values.push(v) - 1;
      index.set(v, k);
    }
    at[i] = k;
  }
  return { values, at };
}

/** A column as it was before `coded`. */
export function decoded<T>(column: T[] | CodedColumn<T>): T[] {
  if (Array.isArray(column)) return column;
  const { values, at } = column;
  // Made at its length: pushed, the arrays grew through about two and a half times their size in garbage. It
  // stays in this thread, so the structured clone's slower form for an array made so does not apply.
  const out = new Array<T>(at.length);
  for (let i = 0; i < at.length; i++) out[i] = values[at[i] as number] as T;
  return out;
}

/** The batch to post: its call columns less the two its spans hold, repeated values coded. */
export function postedBatch(batch: WriteBatch): PostedBatch {
  const { traceId: _traceId, spanId: _spanId, ...rest } = batch.calls;
  const calls: PostedCalls = rest;
  for (const field of CODED_CALLS) setColumn(calls, field, coded(rest[field]));
  return { ...batch, traceIds: coded(batch.traceIds), calls };
}

/** The batch posted, whole again: each call's trace and span ids are those of the span that is the call. */
export function receivedBatch(posted: PostedBatch): WriteBatch {
  const traceIds = decoded(posted.traceIds);
  const n = posted.calls.length;
  const traceId = new Array<string>(n);
  const spanId = new Array<string>(n);
  let found = 0;
  for (let i = 0; i < posted.call.length; i++) {
    const c = posted.call[i] as number;
    if (c < 0) continue;
    traceId[c] = traceIds[i] as string;
    spanId[c] = posted.spanIds[i] as string;
    found++;
  }
  // Every call is one span's: a batch where that fails is not one process/batch.ts made.
  if (found !== n) throw new Error(`a batch of ${n} calls names ${found} call spans`);
  const calls: PostedCalls & Pick<CallColumns, 'traceId' | 'spanId'> = {
    ...posted.calls,
    traceId,
    spanId,
  };
  for (const field of CODED_CALLS) setColumn(calls, field, decoded(posted.calls[field]));
  // Every coded column is decoded now: the call columns are whole, made in the shape every batch's are.
  return writeBatch({ ...posted, traceIds, calls: shapedColumns(calls as CallColumns) });
}

/** Sets one column of `calls` (a helper so that each field keeps its own value type). */
function setColumn<K extends CodedField>(
  calls: PostedCalls,
  field: K,
  column: PostedCalls[K],
): void {
  calls[field] = column;
}
