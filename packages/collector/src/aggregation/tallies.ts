// What one batch adds to the per-tool tables the drift detectors read: its schema versions, input shapes and
// failing paths (of the calls counted once), and the dialects and sides each tool was seen from (of every new
// call). Gathered by the process stage for every backend, each of which adds them to its stored rows.
import type { TracedCall } from '../calls/call-columns.js';
import { sideOfKind } from '../calls/sides.js';
import { NS_PER_MINUTE } from './rollups.js';

export type Tallies = {
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
};

export function newTallies(): Tallies {
  return { schemas: new Map(), shapes: new Map(), paths: new Map(), sources: new Map() };
}

/** Counts the source and side of any new call, client rows included. */
export function tallySource(t: Tallies, call: TracedCall): void {
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

/** Counts what one new tool call, counted once (no other row of the call pairs it), adds for the detectors. */
export function tallyCall(t: Tallies, call: TracedCall): void {
  const { traceId, tool, version, schemaHash, code, startNs, issues, inputShape } = call;
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
