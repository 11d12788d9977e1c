// The CPU-heavy half of a write, done where the spans were decoded: each span encoded for its block, and each
// tool call turned into its column values. The plan holds only strings and numbers, so it crosses to the
// writer thread cheaply; what needs the database (ids, de-duplication, rollups) happens there.
import { SPAN_NAME_TOOL_CONTRACT_PREFIX } from '@toolscope/instrument/semconv';
import { modelCallOf } from '../calls/model-call.js';
import { type ToolCall, toolCallOf } from '../calls/tool-call.js';
import { type ContractValues, contractOf } from '../contracts/contract-span.js';
import type { NormalizedSpan } from '../otlp/model.js';
import { packGroups } from './packed-plan.js';
import { encodeSpan } from './span-codec.js';

/** A planned tool call: the domain's named fields (calls/tool-call.ts) and its span's ids. */
export type PlannedCall = ToolCall & {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
};

/**
 * A batch's calls as one array per named field. They cross to the writer thread by structured clone, where an
 * array per field copies faster than an object per call and no slower than a positional tuple (v8 serialize
 * plus deserialize of 6,000 calls: 1.6–2.2 µs per call as columns, 2.0–2.3 as tuples, 3.1–5.8 as objects).
 */
export type CallColumns = { [K in keyof PlannedCall]: PlannedCall[K][] } & { length: number };

type SpanIds = { traceId: string; spanId: string; parentSpanId: string | null };

// columnsOf and callAt name every field: written out, each access has one shape, which V8 keeps fast; a loop
// over the names made dictionary objects that slowed the writer thread (write-plan.test.ts holds the round trip).
// Each column is mapped from the batch's calls at its final length: pushed call by call, 32 growing arrays
// allocated about two and a half times their final size.
function columnsOf(calls: readonly ToolCall[], spans: readonly SpanIds[]): CallColumns {
  return {
    length: calls.length,
    traceId: spans.map((s) => s.traceId),
    spanId: spans.map((s) => s.spanId),
    parentSpanId: spans.map((s) => s.parentSpanId),
    tool: calls.map((c) => c.tool),
    version: calls.map((c) => c.version),
    schemaHash: calls.map((c) => c.schemaHash),
    attempt: calls.map((c) => c.attempt),
    code: calls.map((c) => c.code),
    errorType: calls.map((c) => c.errorType),
    reason: calls.map((c) => c.reason),
    retryable: calls.map((c) => c.retryable),
    partialEffect: calls.map((c) => c.partialEffect),
    effect: calls.map((c) => c.effect),
    durationMs: calls.map((c) => c.durationMs),
    startNs: calls.map((c) => c.startNs),
    issues: calls.map((c) => c.issues),
    inputHash: calls.map((c) => c.inputHash),
    inputShape: calls.map((c) => c.inputShape),
    outputHash: calls.map((c) => c.outputHash),
    proxy: calls.map((c) => c.proxy),
    idempotencyKeyHash: calls.map((c) => c.idempotencyKeyHash),
    conversationId: calls.map((c) => c.conversationId),
    callId: calls.map((c) => c.callId),
    kind: calls.map((c) => c.kind),
    service: calls.map((c) => c.service),
    isError: calls.map((c) => c.isError),
    source: calls.map((c) => c.source),
    clientName: calls.map((c) => c.clientName),
    resultBytes: calls.map((c) => c.resultBytes),
    resultTokens: calls.map((c) => c.resultTokens),
    exceptionType: calls.map((c) => c.exceptionType),
    exceptionMessage: calls.map((c) => c.exceptionMessage),
  };
}

/** The call at row `i` of the columns, with its named fields. */
export function callAt(c: CallColumns, i: number): PlannedCall {
  return {
    traceId: c.traceId[i] as PlannedCall['traceId'],
    spanId: c.spanId[i] as PlannedCall['spanId'],
    parentSpanId: c.parentSpanId[i] as PlannedCall['parentSpanId'],
    tool: c.tool[i] as PlannedCall['tool'],
    version: c.version[i] as PlannedCall['version'],
    schemaHash: c.schemaHash[i] as PlannedCall['schemaHash'],
    attempt: c.attempt[i] as PlannedCall['attempt'],
    code: c.code[i] as PlannedCall['code'],
    errorType: c.errorType[i] as PlannedCall['errorType'],
    reason: c.reason[i] as PlannedCall['reason'],
    retryable: c.retryable[i] as PlannedCall['retryable'],
    partialEffect: c.partialEffect[i] as PlannedCall['partialEffect'],
    effect: c.effect[i] as PlannedCall['effect'],
    durationMs: c.durationMs[i] as PlannedCall['durationMs'],
    startNs: c.startNs[i] as PlannedCall['startNs'],
    issues: c.issues[i] as PlannedCall['issues'],
    inputHash: c.inputHash[i] as PlannedCall['inputHash'],
    inputShape: c.inputShape[i] as PlannedCall['inputShape'],
    outputHash: c.outputHash[i] as PlannedCall['outputHash'],
    proxy: c.proxy[i] as PlannedCall['proxy'],
    idempotencyKeyHash: c.idempotencyKeyHash[i] as PlannedCall['idempotencyKeyHash'],
    conversationId: c.conversationId[i] as PlannedCall['conversationId'],
    callId: c.callId[i] as PlannedCall['callId'],
    kind: c.kind[i] as PlannedCall['kind'],
    service: c.service[i] as PlannedCall['service'],
    isError: c.isError[i] as PlannedCall['isError'],
    source: c.source[i] as PlannedCall['source'],
    clientName: c.clientName[i] as PlannedCall['clientName'],
    resultBytes: c.resultBytes[i] as PlannedCall['resultBytes'],
    resultTokens: c.resultTokens[i] as PlannedCall['resultTokens'],
    exceptionType: c.exceptionType[i] as PlannedCall['exceptionType'],
    exceptionMessage: c.exceptionMessage[i] as PlannedCall['exceptionMessage'],
  };
}

/**
 * A batch as columns: one entry per span in each array. Built on the decoding thread and copied to the writer
 * thread; typed arrays and flat string arrays copy faster than an object per span (measured, serialize plus
 * deserialize: 11.5 µs per span with an object per span, 6.9 with these columns), and the rollup inputs are
 * read from the call values on the writer side instead of being sent twice.
 */
export type WritePlan = {
  resources: string[];
  traceIds: string[];
  spanIds: string[];
  startNs: BigInt64Array;
  /** Index into `resources`. */
  resource: Uint32Array;
  json: string[];
  /** Index into `calls`, or -1 when the span is not a tool call. */
  call: Int32Array;
  calls: CallColumns;
  /** Catalog rows of the batch's contract spans (contracts/contract-span.ts). */
  contracts: ContractValues[];
  /** The batch's model calls (calls/model-call.ts): what loop detection counts as a loop's model tokens. */
  modelCalls: PlannedModelCall[];
  /**
   * When packed where the batch was decoded (packed-plan.ts): the spans of each (trace, resource) of the batch as
   * one block; `group` is each span's group, its index into `packedIds` (span ids, space-joined) and `packed`.
   */
  group?: Int32Array;
  packedIds?: string[];
  /** The packed blocks end to end; `ends[g]` is where group g's ends. */
  packed?: { bytes: Uint8Array; ends: Uint32Array };
  /** Each span's JSON length (UTF-16 units) within its packed group; `json` is then empty (packed-plan.ts). */
  jsonLength?: Uint32Array;
};

/** A model call of the batch: its span (an index into the plan's spans), time and tokens. */
export type PlannedModelCall = {
  span: number;
  startNs: bigint;
  endNs: bigint;
  inputTokens: number | null;
  outputTokens: number | null;
};

const CONTRACT_SPAN_PREFIX = `${SPAN_NAME_TOOL_CONTRACT_PREFIX} `;

/**
 * The plan of a batch. With `pack` its blocks are packed here (PostgreSQL always, SQLite as pack-balance.ts
 * says); without, assemble.ts packs them where the plan is applied.
 */
export function planWrite(spans: NormalizedSpan[], pack = false): WritePlan {
  const n = spans.length;
  // The calls' columns are made once the batch's calls are known (columnsOf), so the plan takes them last.
  const spanPlan: Omit<WritePlan, 'calls'> = {
    resources: [],
    traceIds: new Array<string>(n),
    spanIds: new Array<string>(n),
    startNs: new BigInt64Array(n),
    resource: new Uint32Array(n),
    json: new Array<string>(n),
    call: new Int32Array(n),
    contracts: [],
    modelCalls: [],
  };
  const resourceIndex = new Map<object, number>();
  const calls: ToolCall[] = [];
  const callSpans: NormalizedSpan[] = [];
  for (let i = 0; i < n; i++) {
    const span = spans[i] as NormalizedSpan;
    let resource = resourceIndex.get(span.resource);
    if (resource === undefined) {
      resource = spanPlan.resources.push(JSON.stringify(span.resource)) - 1;
      resourceIndex.set(span.resource, resource);
    }
    spanPlan.traceIds[i] = span.traceId;
    spanPlan.spanIds[i] = span.spanId;
    spanPlan.startNs[i] = span.startNs;
    spanPlan.resource[i] = resource;
    spanPlan.json[i] = encodeSpan(span);
    const c = toolCallOf(span);
    if (!c) {
      spanPlan.call[i] = -1;
      if (span.name.startsWith(CONTRACT_SPAN_PREFIX)) {
        const contract = contractOf(span);
        if (contract) spanPlan.contracts.push(contract);
        continue;
      }
      const model = modelCallOf(span);
      if (model)
        spanPlan.modelCalls.push({
          span: i,
          startNs: span.startNs,
          endNs: span.endNs,
          inputTokens: model.inputTokens,
          outputTokens: model.outputTokens,
        });
      continue;
    }
    spanPlan.call[i] = calls.push(c) - 1;
    callSpans.push(span);
  }
  const plan: WritePlan = { ...spanPlan, calls: columnsOf(calls, callSpans) };
  if (pack) packGroups(plan);
  return plan;
}
