// What a plain MCP tool's handler threw, or returned when the tool has an output schema. The SDK turns a handler's
// throw into an isError result with the message as text, so the cause (its type) is gone by the time tools/call
// returns; and when the handler's result breaks the tool's own outputSchema, the SDK answers an isError result
// without that result's `structuredContent`, so the path that failed could not be read again from the answer. The
// handler is wrapped to keep both, keyed by the request: SDK v1 hands the handler the same `extra` object as the
// tools/call handler, SDK v2 a context that may be a copy of it but keeps its `mcpReq.signal`.
import { isRecord, wrapToolHandler } from './sdk-access.js';

// What each request's handler threw, and what it returned (the result object itself: no copy per call). Weak, so an
// entry needs no taking back: about 0.5 µs a call in all, timed alone (decision 0035).
const thrown = new WeakMap<object, unknown>();
const returned = new WeakMap<object, unknown>();

/** The key of a request: SDK v2's `mcpReq.signal` (one per request, kept by its context's copies), else `extra`. */
function keyOf(extra: unknown): object | undefined {
  if (typeof extra !== 'object' || extra === null) return undefined;
  const req = (extra as { mcpReq?: unknown }).mcpReq;
  if (req === undefined) return extra;
  const signal = isRecord(req) ? req.signal : undefined;
  return typeof signal === 'object' && signal !== null ? signal : extra;
}

function remember(map: WeakMap<object, unknown>, extra: unknown, value: unknown): void {
  const key = keyOf(extra);
  if (key) map.set(key, value);
}

/**
 * Makes the registered handler of `name` remember what it throws for this request, and, for a tool with an output
 * schema, what it returns (its `structuredContent` is read again only when the SDK refused it).
 */
export function keepThrown(high: object | undefined, name: string): void {
  wrapToolHandler(high, name, (handler, tool) => {
    const onThrow = (extra: unknown) => (error: unknown) => remember(thrown, extra, error);
    // Not an async function, and the handler's own promise goes back unchanged: no tick more per call. The outcome
    // is read on a side branch, which reacts before the SDK's own handler of the same promise. Two parameters, not
    // a rest array: the SDK calls a handler as (args, extra), or (extra) without an input schema, and `extra` is
    // never undefined (SDK v2's executor is always called as (args, ctx)).
    return function toolHandler(this: unknown, first: unknown, second: unknown): unknown {
      const extra = second === undefined ? first : second;
      let out: unknown;
      try {
        out = second === undefined ? handler.call(this, first) : handler.call(this, first, second);
      } catch (error) {
        remember(thrown, extra, error);
        throw error;
      }
      // Read per call: the SDK's `update({ outputSchema })` changes it without making a new handler.
      const keepsOutput = tool.outputSchema !== undefined;
      if (out instanceof Promise) {
        if (keepsOutput)
          out.then((result: unknown) => remember(returned, extra, result), onThrow(extra));
        else out.then(undefined, onThrow(extra));
      } else if (keepsOutput) remember(returned, extra, out);
      return out;
    };
  });
}

/** The error the handler threw while serving the request with this `extra`, if it threw. */
export function thrownFor(extra: unknown): { error: unknown } | undefined {
  const key = keyOf(extra);
  return key && thrown.has(key) ? { error: thrown.get(key) } : undefined;
}

/** The `structuredContent` the handler returned for the request with this `extra`, when it was kept. */
export function outputFor(extra: unknown): { structuredContent: unknown } | undefined {
  const key = keyOf(extra);
  if (!key || !returned.has(key)) return undefined;
  const result = returned.get(key);
  return { structuredContent: isRecord(result) ? result.structuredContent : undefined };
}
