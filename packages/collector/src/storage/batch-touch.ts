// What one batch changes for the detectors, gathered while its calls are written (both backends): the calls
// loop detection counts, and the per-tool schema, input-shape and failing-path counts drift reads.
import { callCode } from '../calls/code.js';
import { firstIssuePath } from '../calls/issues.js';
import { sideOfKind } from '../calls/sides.js';
import type { ContractValues } from '../contracts/contract-span.js';
import type { BatchCall } from './contract.js';
import { NS_PER_MINUTE } from './sql/db.js';
import type { PlannedCall } from './write-plan.js';

export type BatchTouch = {
  /** The batch's new calls that loop detection counts (server rows, client rows with no server row). */
  calls: BatchCall[];
  schemas: Map<
    string,
    {
      tool: string;
      version: string;
      hash: string;
      first: bigint;
      last: bigint;
      calls: number;
      traceId: string;
    }
  >;
  shapes: Map<
    string,
    { tool: string; shape: string; first: bigint; last: bigint; calls: number; invalid: number }
  >;
  paths: Map<
    string,
    { tool: string; code: string; path: string; minute: bigint; count: number; traceId: string }
  >;
  /** Which dialects (sources) and sides each tool was seen from: the tool_sources table. */
  sources: Map<string, { tool: string; source: string; side: string; first: bigint; last: bigint }>;
  /** Contract catalog rows reported in the batch (contracts/contract-span.ts). */
  contracts: ContractValues[];
};

export function newTouch(): BatchTouch {
  return {
    calls: [],
    schemas: new Map(),
    shapes: new Map(),
    paths: new Map(),
    sources: new Map(),
    contracts: [],
  };
}

/** Records the source and side of any new call, client rows included. */
export function touchSource(t: BatchTouch, call: PlannedCall): void {
  const { tool, source, startNs } = call;
  const side = sideOfKind(call.kind);
  const key = `${tool}\u0000${source}\u0000${side}`;
  const s = t.sources.get(key);
  if (!s) t.sources.set(key, { tool, source, side, first: startNs, last: startNs });
  else {
    if (startNs < s.first) s.first = startNs;
    if (startNs > s.last) s.last = startNs;
  }
}

/** Records what one new, non-client tool call changes for the detectors. */
export function touchCall(t: BatchTouch, call: PlannedCall): void {
  const { traceId, tool, version, schemaHash, code, startNs, issues, inputShape, conversationId } =
    call;
  t.calls.push({ call: sequenceCallOf(call), conversationId });
  if (version !== null && schemaHash !== null) {
    const key = `${tool}\u0000${version}\u0000${schemaHash}`;
    const s = t.schemas.get(key);
    if (s) {
      s.calls++;
      if (startNs < s.first) s.first = startNs;
      if (startNs > s.last) {
        s.last = startNs;
        s.traceId = traceId;
      }
    } else
      t.schemas.set(key, {
        tool,
        version,
        hash: schemaHash,
        first: startNs,
        last: startNs,
        calls: 1,
        traceId,
      });
  }
  if (inputShape !== null) {
    const key = `${tool}\u0000${inputShape}`;
    const s = t.shapes.get(key) ?? {
      tool,
      shape: inputShape,
      first: startNs,
      last: startNs,
      calls: 0,
      invalid: 0,
    };
    s.calls++;
    if (code === 'INVALID_INPUT') s.invalid++;
    if (startNs < s.first) s.first = startNs;
    if (startNs > s.last) s.last = startNs;
    t.shapes.set(key, s);
  }
  if (issues !== null && (code === 'INVALID_INPUT' || code === 'INVALID_OUTPUT')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(issues);
    } catch {
      parsed = [];
    }
    const minute = startNs / NS_PER_MINUTE;
    for (const issue of Array.isArray(parsed) ? parsed : []) {
      const raw =
        typeof issue === 'object' && issue !== null ? Reflect.get(issue, 'path') : undefined;
      if (typeof raw !== 'string') continue;
      // A column value: no NUL (PostgreSQL text cannot hold it; see calls/tool-call.ts).
      const path = raw.replaceAll('\u0000', '\uFFFD');
      const key = `${tool}\u0000${code}\u0000${path}\u0000${minute}`;
      const p = t.paths.get(key) ?? { tool, code, path, minute, count: 0, traceId };
      p.count++;
      p.traceId = traceId;
      t.paths.set(key, p);
    }
  }
}

/** A new call as a call of its scopes' sequences. */
function sequenceCallOf(c: PlannedCall): BatchCall['call'] {
  return {
    traceId: c.traceId,
    spanId: c.spanId,
    tool: c.tool,
    inputHash: c.inputHash,
    inputShape: c.inputShape,
    outputHash: c.outputHash,
    startNs: c.startNs,
    endNs: c.startNs + BigInt(Math.round(c.durationMs * 1e6)),
    code: callCode(c.code, c.errorType, c.isError),
    retryable: c.retryable === null ? null : c.retryable === 1,
    partialEffect: c.partialEffect === 1,
    effect: c.effect,
    idempotencyKeyHash: c.idempotencyKeyHash,
    firstIssuePath: firstIssuePath(c.issues),
    resultTokens: c.resultTokens,
  };
}
