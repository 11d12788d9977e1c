// A conversation as the on-call reader wants it: one row per tool call, in start order, with the model's steps
// between them. A span's call and model call are the collector's reading (`call`, `modelCall`). The MCP
// client's span and the server's span of one call become one row (the collector's pairing rule decides which
// belong together); each field comes from the side that knows it, and the fields both sides know but disagree
// on are kept, so the row can say so. The parts of one logical call that other processes traced (a leg, a
// task's polls: the collector names the span holding the call in `joinedTo`) are inside that call's row, not
// rows of their own. Pure: the view and its tests read the same rows.
import {
  clientPairKeys,
  type Flag,
  type ModelCallOut,
  type SpanCall,
  type SpanOut,
  serverPairKeys,
} from '@toolscope/collector/schemas';
import { partsByHolder } from './story-parts';

export type Side = { span: SpanOut; call: SpanCall };

/** Fields both sides can report; a difference between them is worth a reader's attention. */
const COMPARED = [
  'code',
  'version',
  'schemaHash',
  'inputHash',
  'inputShape',
  'attempt',
  'retryable',
  'partialEffect',
] as const satisfies readonly (keyof SpanCall)[];

export type Disagreement = {
  field: (typeof COMPARED)[number];
  client: string;
  server: string;
};

export type StoryRow = {
  /** 1-based position in the conversation. */
  n: number;
  /** The row's anchor: the server span's id when there is one (what flags' evidence names), else the client's. */
  spanId: string;
  traceId: string;
  server: Side | null;
  client: Side | null;
  /** `toolscope proxy`'s span of the call, when it went through the proxy and the server traced it too. */
  proxy: Side | null;
  /** The other spans of this logical call (legs and polls other processes served), in start order. */
  parts: Side[];
  call: SpanCall;
  disagreements: Disagreement[];
  startNs: bigint;
  endNs: bigint;
  durationMs: number;
  /** The earlier row that sent the same tool the same input (same keyed input hash). */
  repeatOf: number | null;
};

const shown = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

function merge(
  server: Side | null,
  client: Side | null,
  proxy: Side | null,
  parts: Side[] = [],
): Omit<StoryRow, 'n' | 'repeatOf'> {
  const main = (server ?? client) as Side;
  const call: SpanCall = { ...main.call };
  const disagreements: Disagreement[] = [];
  if (server && client) {
    // The server knows its contract and outcome; the client fills what the server did not say.
    for (const [key, value] of Object.entries(client.call) as [keyof SpanCall, unknown][]) {
      if (call[key] === null && value !== null) Object.assign(call, { [key]: value });
    }
    if (call.issues.length === 0) call.issues = client.call.issues;
    for (const field of COMPARED) {
      const c = client.call[field];
      const s = server.call[field];
      if (c !== null && s !== null && c !== s)
        disagreements.push({ field, client: shown(c), server: shown(s) });
    }
  }
  const spans = [server?.span, client?.span, proxy?.span, ...parts.map((p) => p.span)].filter(
    (s): s is SpanOut => s !== undefined,
  );
  const startNs = spans.reduce((m, s) => {
    const t = BigInt(s.startTimeUnixNano);
    return t < m ? t : m;
  }, BigInt(main.span.startTimeUnixNano));
  const endNs = spans.reduce((m, s) => {
    const t = BigInt(s.endTimeUnixNano);
    return t > m ? t : m;
  }, BigInt(main.span.endTimeUnixNano));
  return {
    spanId: main.span.spanId,
    traceId: main.span.traceId,
    server,
    client,
    proxy,
    parts,
    call,
    disagreements,
    startNs,
    endNs,
    // What the agent waited: the client's span when there is one, else the proxy's, else the call's (from its
    // first part to its last).
    durationMs: (client ?? proxy)?.span.durationMs ?? main.call.durationMs,
  };
}

/** The rows of a conversation's (or a trace's) spans, one per tool call, in start order. */
export function storyRows(spans: readonly SpanOut[]): StoryRow[] {
  const sides: Side[] = [];
  for (const span of spans)
    if (span.call && !span.call.joinedTo) sides.push({ span, call: span.call });
  const parts = partsByHolder(spans);
  const partsOf = (...of: (Side | null)[]) =>
    of.flatMap((s) => (s ? (parts.get(`${s.span.traceId}\u0000${s.span.spanId}`) ?? []) : []));
  const keyOf = (s: Side, k: string) => `${s.span.traceId}\u0000${k}`;
  const serverKeys = (s: Side) =>
    serverPairKeys({ parentSpanId: s.span.parentSpanId, callId: s.call.callId, tool: s.call.tool });
  const clientKeys = (s: Side) =>
    clientPairKeys({ spanId: s.span.spanId, callId: s.call.callId, tool: s.call.tool });
  // A proxy's span and the server span below it are one call: the row is the server's, the proxy a hop on it.
  const innerByKey = new Map<string, Side>();
  for (const s of sides)
    if (s.call.side !== 'client' && !s.call.proxy)
      for (const k of serverKeys(s)) innerByKey.set(keyOf(s, k), s);
  const proxyOf = new Map<Side, Side>();
  const innerOf = new Map<Side, Side>();
  for (const s of sides) {
    if (s.call.side === 'client' || !s.call.proxy) continue;
    const inner = clientKeys(s)
      .map((k) => innerByKey.get(keyOf(s, k)))
      .find((x) => x !== undefined && !proxyOf.has(x));
    if (inner) {
      proxyOf.set(inner, s);
      innerOf.set(s, inner);
    }
  }
  const serverByKey = new Map<string, Side>();
  for (const s of sides) {
    if (s.call.side === 'client') continue;
    for (const k of serverKeys(s)) serverByKey.set(keyOf(s, k), innerOf.get(s) ?? s);
  }
  const clientOf = new Map<Side, Side>();
  const merged: Omit<StoryRow, 'n' | 'repeatOf'>[] = [];
  for (const s of sides) {
    if (s.call.side !== 'client') continue;
    const server = clientKeys(s)
      .map((k) => serverByKey.get(keyOf(s, k)))
      .find((x) => x !== undefined && !clientOf.has(x));
    if (server) clientOf.set(server, s);
    else merged.push(merge(null, s, null));
  }
  for (const s of sides)
    if (s.call.side !== 'client' && !innerOf.has(s)) {
      const proxy = proxyOf.get(s) ?? null;
      merged.push(merge(s, clientOf.get(s) ?? null, proxy, partsOf(s, proxy)));
    }
  merged.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const firstByInput = new Map<string, number>();
  return merged.map((row, i) => {
    const n = i + 1;
    const key = row.call.inputHash ? `${row.call.tool}\u0000${row.call.inputHash}` : null;
    const repeatOf = key ? (firstByInput.get(key) ?? null) : null;
    if (key && repeatOf === null) firstByInput.set(key, n);
    return { ...row, n, repeatOf };
  });
}

/** One request to the model, between the calls: what the agent decided next. */
export type ModelStep = {
  spanId: string;
  traceId: string;
  startNs: bigint;
  endNs: bigint;
  durationMs: number;
  model: ModelCallOut;
};

/** The model steps of these spans, in start order. */
export function modelSteps(spans: readonly SpanOut[]): ModelStep[] {
  const steps: ModelStep[] = [];
  for (const s of spans) {
    if (!s.modelCall) continue;
    steps.push({
      spanId: s.spanId,
      traceId: s.traceId,
      startNs: BigInt(s.startTimeUnixNano),
      endNs: BigInt(s.endTimeUnixNano),
      durationMs: s.durationMs,
      model: s.modelCall,
    });
  }
  return steps.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
}

export type StoryItem = { kind: 'call'; row: StoryRow } | { kind: 'model'; step: ModelStep };

/**
 * Calls and model steps in one start order; a model step that starts with a call comes first, since the
 * model's answer is what asked for the call.
 */
export function storyItems(rows: readonly StoryRow[], steps: readonly ModelStep[]): StoryItem[] {
  const items: StoryItem[] = [];
  let m = 0;
  for (const row of rows) {
    while (m < steps.length && (steps[m] as ModelStep).startNs <= row.startNs)
      items.push({ kind: 'model', step: steps[m++] as ModelStep });
    items.push({ kind: 'call', row });
  }
  while (m < steps.length) items.push({ kind: 'model', step: steps[m++] as ModelStep });
  return items;
}

/**
 * The rows a flag is about: the spans its evidence names; the flagged tool's calls under the contracts
 * (schema hashes) or versions it names; failing that, the flagged tool's calls in its traces.
 */
function flaggedRows(
  flag: Flag,
  rows: readonly StoryRow[],
  spanIds: Set<string>,
  traceIds: Set<string>,
): StoryRow[] {
  const hashes = new Set(flag.evidence.schemaHashes ?? []);
  const versions = new Set(flag.evidence.versions ?? (flag.version ? [flag.version] : []));
  const byContract = (r: StoryRow) =>
    r.call.tool === flag.tool &&
    ((r.call.schemaHash !== null && hashes.has(r.call.schemaHash)) ||
      (hashes.size === 0 && r.call.version !== null && versions.has(r.call.version)));
  const named = rows.filter(
    (r) =>
      spanIds.has(r.server?.span.spanId ?? '') ||
      spanIds.has(r.client?.span.spanId ?? '') ||
      spanIds.has(r.proxy?.span.spanId ?? '') ||
      byContract(r),
  );
  if (named.length > 0) return named;
  return rows.filter(
    (r) => r.call.tool === flag.tool && (traceIds.size === 0 || traceIds.has(r.traceId)),
  );
}

/** The flags that touch these rows: by conversation, trace or span; each with the rows it names. */
export function pinnedFlags(
  flags: readonly Flag[],
  conversationId: string | null,
  rows: readonly StoryRow[],
): { flag: Flag; rows: number[] }[] {
  const traces = new Set(rows.map((r) => r.traceId));
  const out: { flag: Flag; rows: number[] }[] = [];
  for (const flag of flags) {
    const ev = flag.evidence;
    const spanIds = new Set(ev.spanIds ?? []);
    const traceIds = new Set([...(ev.traceIds ?? []), ...(flag.traceId ? [flag.traceId] : [])]);
    const touches =
      (conversationId !== null &&
        (flag.conversationId === conversationId ||
          (ev.conversations ?? []).includes(conversationId))) ||
      [...traceIds].some((t) => traces.has(t));
    if (!touches) continue;
    out.push({ flag, rows: flaggedRows(flag, rows, spanIds, traceIds).map((r) => r.n) });
  }
  return out;
}

/** Each row's round in the cycles that name it (`tool_cycle` flags: their calls in order, `k` per round). */
export function cycleRounds(
  flags: readonly Flag[],
  rows: readonly StoryRow[],
): Map<number, string> {
  const rowOf = new Map<string, number>();
  for (const r of rows) {
    if (r.server) rowOf.set(r.server.span.spanId, r.n);
    if (r.client) rowOf.set(r.client.span.spanId, r.n);
    if (r.proxy) rowOf.set(r.proxy.span.spanId, r.n);
  }
  const out = new Map<number, string>();
  for (const f of flags) {
    const k = f.evidence.cycle?.length ?? 0;
    const rounds = f.evidence.rounds;
    if (f.kind !== 'tool_cycle' || k < 2 || rounds === undefined) continue;
    (f.evidence.spanIds ?? []).forEach((spanId, i) => {
      const n = rowOf.get(spanId);
      if (n !== undefined) out.set(n, `round ${Math.floor(i / k) + 1} of ${rounds}`);
    });
  }
  return out;
}
