// The process stage's first half, done where the spans were decoded: each span encoded for its block (storage's
// codec) and its blocks packed, each tool call recognised into the call model's columns, contract reports and
// model calls read. What needs the database (row numbers, duplicates, pairing, rollups) is its second half
// (rows.ts), which the writer runs inside the batch's transaction.
import { SPAN_NAME_TOOL_CONTRACT_PREFIX } from '@toolscope/instrument/semconv';
import { blankOf, columnsOf, dense } from '../calls/call-columns.js';
import { modelCallOf } from '../calls/model-call.js';
import { type ToolCall, toolCallOf } from '../calls/tool-call.js';
import { contractOf } from '../contracts/contract-span.js';
import type { NormalizedSpan } from '../otlp/model.js';
import { encodeSpan } from '../storage/span-codec.js';
import type { WriteBatch } from '../storage/write-batch.js';
import { packGroups } from './packing.js';

const CONTRACT_SPAN_PREFIX = `${SPAN_NAME_TOOL_CONTRACT_PREFIX} `;

/**
 * The batch of `spans`, its blocks packed (`pack`, the default): the writer then stores bytes it did not have to
 * compress, and the spans' JSON is not copied to it at all. Without, the writer packs them (rows.ts).
 */
export function processBatch(spans: readonly NormalizedSpan[], pack = true): WriteBatch {
  const n = spans.length;
  const blank = blankOf(n);
  // The calls' columns are made once the batch's calls are known (columnsOf), so the batch takes them last.
  const spanPart: Omit<WriteBatch, 'calls'> = {
    resources: [],
    // Dense (call-columns.ts): the structured clone to the writer thread sends a holey array in its slower form.
    traceIds: dense(spans, (s) => s.traceId, blank),
    spanIds: dense(spans, (s) => s.spanId, blank),
    startNs: new BigInt64Array(n),
    resource: new Uint32Array(n),
    // Written straight into the packed blocks when packed, as a string per span for the writer to pack when not.
    json: pack ? [] : dense(spans, encodeSpan, blank),
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
      resource = spanPart.resources.push(JSON.stringify(span.resource)) - 1;
      resourceIndex.set(span.resource, resource);
    }
    spanPart.startNs[i] = span.startNs;
    spanPart.resource[i] = resource;
    const c = toolCallOf(span);
    if (!c) {
      spanPart.call[i] = -1;
      if (span.name.startsWith(CONTRACT_SPAN_PREFIX)) {
        const contract = contractOf(span);
        if (contract) spanPart.contracts.push(contract);
        continue;
      }
      const model = modelCallOf(span);
      if (model)
        spanPart.modelCalls.push({
          span: i,
          startNs: span.startNs,
          endNs: span.endNs,
          inputTokens: model.inputTokens,
          outputTokens: model.outputTokens,
        });
      continue;
    }
    spanPart.call[i] = calls.push(c) - 1;
    callSpans.push(span);
  }
  const batch: WriteBatch = { ...spanPart, calls: columnsOf(calls, callSpans) };
  if (pack) packGroups(batch, spans);
  return batch;
}
