// What one batch changes for the detectors, gathered while its calls are written (both backends): the calls
// loop detection counts, and the per-tool schema, input-shape and failing-path counts drift reads.
import { callCode } from '../calls/code.js';
import { firstIssuePath } from '../calls/issues.js';
import { sideOfKind } from '../calls/sides.js';
import type { ContractValues } from '../contracts/contract-span.js';
import type { BatchCall } from './contract.js';
import { NS_PER_MINUTE } from './sql/db.js';
import type { CallValues } from './write-plan.js';

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
export function touchSource(t: BatchTouch, call: CallValues): void {
  const tool = call[3];
  const source = call[25];
  const side = sideOfKind(call[22]);
  const startNs = call[15];
  const key = `${tool}\u0000${source}\u0000${side}`;
  const s = t.sources.get(key);
  if (!s) t.sources.set(key, { tool, source, side, first: startNs, last: startNs });
  else {
    if (startNs < s.first) s.first = startNs;
    if (startNs > s.last) s.last = startNs;
  }
}

/** Records what one new, non-client tool call changes for the detectors. */
export function touchCall(t: BatchTouch, call: CallValues): void {
  const traceId = call[0];
  const tool = call[3];
  const version = call[4];
  const schemaHash = call[5];
  const code = call[7];
  const startNs = call[15];
  const issues = call[16];
  const inputShape = call[18];
  const conversationId = call[20];
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
function sequenceCallOf(v: CallValues): BatchCall['call'] {
  return {
    traceId: v[0],
    spanId: v[1],
    tool: v[3],
    inputHash: v[17],
    inputShape: v[18],
    outputHash: v[31],
    startNs: v[15],
    endNs: v[15] + BigInt(Math.round(v[14] * 1e6)),
    code: callCode(v[7], v[8], v[10] === 1),
    retryable: v[11] === null ? null : v[11] === 1,
    partialEffect: v[12] === 1,
    effect: v[13],
    idempotencyKeyHash: v[19],
    firstIssuePath: firstIssuePath(v[16]),
    resultTokens: v[30],
  };
}
