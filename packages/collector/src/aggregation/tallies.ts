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
  /**
   * The same entries by the parts of their keys, so a call finds its entry without making its key: the key
   * strings, made for every call, were most of what the tallies allocated. A key is made once per new entry.
   */
  index: {
    schemas: Nested<Nested<Nested<Schema>>>;
    shapes: Nested<Nested<Shape>>;
    sources: Nested<Nested<Nested<Source>>>;
  };
};

type Schema = Tallies['schemas'] extends Map<string, infer V> ? V : never;
type Shape = Tallies['shapes'] extends Map<string, infer V> ? V : never;
type Source = Tallies['sources'] extends Map<string, infer V> ? V : never;
type Nested<V> = Map<string, V>;

export function newTallies(): Tallies {
  return {
    schemas: new Map(),
    shapes: new Map(),
    paths: new Map(),
    sources: new Map(),
    index: { schemas: new Map(), shapes: new Map(), sources: new Map() },
  };
}

/** The map under `key`, made when missing. */
function level<V>(m: Nested<Nested<V>>, key: string): Nested<V> {
  let next = m.get(key);
  if (!next) {
    next = new Map();
    m.set(key, next);
  }
  return next;
}

/**
 * A new entry's place in the index, on a miss there: the entry `all` holds under its key, if parts of another
 * joined to the same key (it is that entry, as when the key found it), else `fresh`, added to `all`.
 */
function adopt<V>(byPart: Nested<V>, part: string, all: Map<string, V>, key: string, fresh: V): V {
  let e = all.get(key);
  if (e === undefined) {
    e = fresh;
    all.set(key, e);
  }
  byPart.set(part, e);
  return e;
}

/** Counts the source and side of any new call, client rows included. */
export function tallySource(t: Tallies, call: TracedCall): void {
  const { tool, source, startNs } = call;
  const side = sideOfKind(call.kind);
  const bySide = level(level(t.index.sources, tool), source);
  const s =
    bySide.get(side) ??
    adopt(bySide, side, t.sources, `${tool}\u0000${source}\u0000${side}`, {
      tool,
      source,
      side,
      first: startNs,
      last: startNs,
    });
  if (startNs < s.first) s.first = startNs;
  if (startNs > s.last) s.last = startNs;
}

/** Counts what one new tool call, counted once (no other row of the call pairs it), adds for the detectors. */
export function tallyCall(t: Tallies, call: TracedCall): void {
  const { traceId, tool, version, schemaHash, code, startNs, issues, inputShape } = call;
  if (version !== null && schemaHash !== null) {
    const byHash = level(level(t.index.schemas, tool), version);
    const s =
      byHash.get(schemaHash) ??
      adopt(byHash, schemaHash, t.schemas, `${tool}\u0000${version}\u0000${schemaHash}`, {
        tool,
        version,
        hash: schemaHash,
        first: startNs,
        last: startNs,
        calls: 0,
        traceId,
      });
    s.calls++;
    if (startNs < s.first) s.first = startNs;
    if (startNs > s.last) {
      s.last = startNs;
      s.traceId = traceId;
    }
  }
  if (inputShape !== null) {
    const byShape = level(t.index.shapes, tool);
    const s =
      byShape.get(inputShape) ??
      adopt(byShape, inputShape, t.shapes, `${tool}\u0000${inputShape}`, {
        tool,
        shape: inputShape,
        first: startNs,
        last: startNs,
        calls: 0,
        invalid: 0,
      });
    s.calls++;
    if (code === 'INVALID_INPUT') s.invalid++;
    if (startNs < s.first) s.first = startNs;
    if (startNs > s.last) s.last = startNs;
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
