// The call model's columnar form: a batch's tool calls as one array per named field, as the process stage
// makes them and every writer reads them. A field added to ToolCall (tool-call.ts) is one line in each of the
// two functions below, which the round-trip test in process/batch.test.ts holds to.
import type { ToolCall } from './tool-call.js';

/** A tool call with its span's ids: where in its trace it is. */
export type TracedCall = ToolCall & {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
};

/**
 * A batch's calls as one array per named field. They cross to the writer thread by structured clone, where an
 * array per field copies faster than an object per call and no slower than a positional tuple (v8 serialize
 * plus deserialize of 6,000 calls: 1.6–2.2 µs per call as columns, 2.0–2.3 as tuples, 3.1–5.8 as objects).
 */
export type CallColumns = Columns & { length: number };
type Columns = { [K in keyof TracedCall]: TracedCall[K][] };

type SpanIds = { traceId: string; spanId: string; parentSpanId: string | null };

// columnsOf and callAt name every field: written out, each access has one shape, which V8 keeps fast; a loop
// over the names made dictionary objects that slowed the writer thread (process/batch.test.ts holds the round trip).
// Each column is made by `dense`, not `map`: once optimized, `map` makes its result as `new Array(length)`, which
// stays holey when filled, and the structured clone sends a holey array in its sparse form: on 900 values,
// 1.5–2× the time to serialize and to read back for strings, 2.5–8× for numbers
// (docs/decisions/0069-the-load-generator-and-the-merge.md).

/**
 * `items` mapped by `f` into a packed (dense) array in every tier of V8, whatever optimized `map` would have
 * made. Made at its length by spreading a holey array (the spread fills the holes, so the result is packed) and
 * then assigned in place: appended value by value, each column grew through about twice its size in garbage,
 * and the columns were 30 % of what the HTTP thread allocated (a sampling heap profile of bench:ingest). The holey
 * array is only read: a batch's columns share one (`blankOf`), which was half of what they allocated.
 */
export function dense<T, U>(
  items: readonly T[],
  f: (item: T) => U,
  blank: readonly undefined[] = blankOf(items.length),
): U[] {
  const n = items.length;
  if (blank.length !== n) throw new RangeError(`a blank of ${blank.length} for ${n} items`);
  // An empty spread gives a holey empty array: harmless, but not what this promises.
  const out = n === 0 ? [] : ([...blank] as U[]);
  for (let i = 0; i < n; i++) out[i] = f(items[i] as T);
  return out;
}

/** A holey array of `n` (nothing in it): what `dense` spreads to make a column of that length. */
export const blankOf = (n: number): readonly undefined[] => new Array<undefined>(n);

export function columnsOf(calls: readonly ToolCall[], spans: readonly SpanIds[]): CallColumns {
  const b = blankOf(calls.length);
  return {
    length: calls.length,
    traceId: dense(spans, (s) => s.traceId, b),
    spanId: dense(spans, (s) => s.spanId, b),
    parentSpanId: dense(spans, (s) => s.parentSpanId, b),
    tool: dense(calls, (c) => c.tool, b),
    version: dense(calls, (c) => c.version, b),
    schemaHash: dense(calls, (c) => c.schemaHash, b),
    attempt: dense(calls, (c) => c.attempt, b),
    code: dense(calls, (c) => c.code, b),
    errorType: dense(calls, (c) => c.errorType, b),
    reason: dense(calls, (c) => c.reason, b),
    retryable: dense(calls, (c) => c.retryable, b),
    partialEffect: dense(calls, (c) => c.partialEffect, b),
    effect: dense(calls, (c) => c.effect, b),
    durationMs: dense(calls, (c) => c.durationMs, b),
    startNs: dense(calls, (c) => c.startNs, b),
    issues: dense(calls, (c) => c.issues, b),
    inputHash: dense(calls, (c) => c.inputHash, b),
    inputShape: dense(calls, (c) => c.inputShape, b),
    outputHash: dense(calls, (c) => c.outputHash, b),
    proxy: dense(calls, (c) => c.proxy, b),
    idempotencyKeyHash: dense(calls, (c) => c.idempotencyKeyHash, b),
    conversationId: dense(calls, (c) => c.conversationId, b),
    callId: dense(calls, (c) => c.callId, b),
    kind: dense(calls, (c) => c.kind, b),
    service: dense(calls, (c) => c.service, b),
    isError: dense(calls, (c) => c.isError, b),
    source: dense(calls, (c) => c.source, b),
    clientName: dense(calls, (c) => c.clientName, b),
    clientVersion: dense(calls, (c) => c.clientVersion, b),
    resultBytes: dense(calls, (c) => c.resultBytes, b),
    resultTokens: dense(calls, (c) => c.resultTokens, b),
    logical: dense(calls, (c) => c.logical, b),
    exceptionType: dense(calls, (c) => c.exceptionType, b),
    exceptionMessage: dense(calls, (c) => c.exceptionMessage, b),
  };
}

/** The call at row `i` of the columns, with its named fields. */
export function callAt(c: CallColumns, i: number): TracedCall {
  return {
    traceId: c.traceId[i] as TracedCall['traceId'],
    spanId: c.spanId[i] as TracedCall['spanId'],
    parentSpanId: c.parentSpanId[i] as TracedCall['parentSpanId'],
    tool: c.tool[i] as TracedCall['tool'],
    version: c.version[i] as TracedCall['version'],
    schemaHash: c.schemaHash[i] as TracedCall['schemaHash'],
    attempt: c.attempt[i] as TracedCall['attempt'],
    code: c.code[i] as TracedCall['code'],
    errorType: c.errorType[i] as TracedCall['errorType'],
    reason: c.reason[i] as TracedCall['reason'],
    retryable: c.retryable[i] as TracedCall['retryable'],
    partialEffect: c.partialEffect[i] as TracedCall['partialEffect'],
    effect: c.effect[i] as TracedCall['effect'],
    durationMs: c.durationMs[i] as TracedCall['durationMs'],
    startNs: c.startNs[i] as TracedCall['startNs'],
    issues: c.issues[i] as TracedCall['issues'],
    inputHash: c.inputHash[i] as TracedCall['inputHash'],
    inputShape: c.inputShape[i] as TracedCall['inputShape'],
    outputHash: c.outputHash[i] as TracedCall['outputHash'],
    proxy: c.proxy[i] as TracedCall['proxy'],
    idempotencyKeyHash: c.idempotencyKeyHash[i] as TracedCall['idempotencyKeyHash'],
    conversationId: c.conversationId[i] as TracedCall['conversationId'],
    callId: c.callId[i] as TracedCall['callId'],
    kind: c.kind[i] as TracedCall['kind'],
    service: c.service[i] as TracedCall['service'],
    isError: c.isError[i] as TracedCall['isError'],
    source: c.source[i] as TracedCall['source'],
    clientName: c.clientName[i] as TracedCall['clientName'],
    clientVersion: c.clientVersion[i] as TracedCall['clientVersion'],
    resultBytes: c.resultBytes[i] as TracedCall['resultBytes'],
    resultTokens: c.resultTokens[i] as TracedCall['resultTokens'],
    logical: c.logical[i] as TracedCall['logical'],
    exceptionType: c.exceptionType[i] as TracedCall['exceptionType'],
    exceptionMessage: c.exceptionMessage[i] as TracedCall['exceptionMessage'],
  };
}

/**
 * The columns of several batches end to end, in their order, each by one `concat` of the parts' columns: made at
 * its final length, in C++, and packed as the parts are (a holey array crosses to the writer thread in the
 * structured clone's slower sparse form). Pushed value by value, the copy was the HTTP thread's largest
 * allocation per span, 397 bytes of 2,505 (docs/decisions/0069-the-load-generator-and-the-merge.md), and 10× the
 * time of a concat in a loop of 900 calls.
 */
export function concatColumns(parts: readonly CallColumns[]): CallColumns {
  const [first, ...rest] = parts;
  if (!first || rest.length === 0) return first ?? emptyColumns();
  let length = 0;
  for (const part of parts) length += part.length;
  return columnsFrom(length, (field) => joinedColumn(first, rest, field));
}

function joinedColumn<K extends keyof TracedCall>(
  first: CallColumns,
  rest: readonly CallColumns[],
  field: K,
): TracedCall[K][] {
  const column = (part: Columns): TracedCall[K][] => part[field];
  return column(first).concat(...rest.map(column));
}

/** A column of each field, as `column` gives it. */
type ColumnOf = <K extends keyof TracedCall>(field: K) => TracedCall[K][];

/**
 * Columns made by `column`, field by field, in columnsOf's order: one shape (V8 map) for every CallColumns the
 * writer thread reads, whether one batch's or several joined. Set by name in a loop, the object became a
 * dictionary past a dozen fields, and the writer's optimized code, made for the one shape, was thrown away and
 * made again when it met the other (`--trace-deopt`: "wrong map").
 */
export function columnsFrom(length: number, column: ColumnOf): CallColumns {
  return {
    length,
    traceId: column('traceId'),
    spanId: column('spanId'),
    parentSpanId: column('parentSpanId'),
    tool: column('tool'),
    version: column('version'),
    schemaHash: column('schemaHash'),
    attempt: column('attempt'),
    code: column('code'),
    errorType: column('errorType'),
    reason: column('reason'),
    retryable: column('retryable'),
    partialEffect: column('partialEffect'),
    effect: column('effect'),
    durationMs: column('durationMs'),
    startNs: column('startNs'),
    issues: column('issues'),
    inputHash: column('inputHash'),
    inputShape: column('inputShape'),
    outputHash: column('outputHash'),
    proxy: column('proxy'),
    idempotencyKeyHash: column('idempotencyKeyHash'),
    conversationId: column('conversationId'),
    callId: column('callId'),
    kind: column('kind'),
    service: column('service'),
    isError: column('isError'),
    source: column('source'),
    clientName: column('clientName'),
    clientVersion: column('clientVersion'),
    resultBytes: column('resultBytes'),
    resultTokens: column('resultTokens'),
    logical: column('logical'),
    exceptionType: column('exceptionType'),
    exceptionMessage: column('exceptionMessage'),
  };
}

/** The same columns in the one shape columnsFrom makes (those of a structured clone, a spread, are another). */
export function shapedColumns(c: CallColumns): CallColumns {
  const columns: Columns = c;
  return columnsFrom(c.length, (field) => columns[field]);
}

/** No calls: every column empty. */
function emptyColumns(): CallColumns {
  return columnsOf([], []);
}
