// What a plain MCP tool threw. The SDK turns a handler's throw into an isError result with the message as text,
// so the cause (its type) is gone by the time tools/call returns: the handler is wrapped to keep the error,
// keyed by the request's `extra` object, which the SDK hands to the handler unchanged.
import { wrapToolHandler } from './sdk-access.js';

const thrown = new WeakMap<object, unknown>();

function remember(extra: unknown, error: unknown): void {
  if (typeof extra === 'object' && extra !== null) thrown.set(extra, error);
}

/** Makes the registered handler of `name` remember what it throws for this request. */
export function keepThrown(high: object | undefined, name: string): void {
  wrapToolHandler(
    high,
    name,
    (handler) =>
      // Not an async function, and the handler's own promise goes back unchanged: no tick more per call. The
      // rejection is read on a side branch, which reacts before the SDK's own handler of the same promise.
      // Two parameters, not a rest array: the SDK calls a handler as (args, extra), or (extra) without an input
      // schema, and `extra` is never undefined.
      function toolHandler(this: unknown, first: unknown, second: unknown): unknown {
        const extra = second === undefined ? first : second;
        let out: unknown;
        try {
          out =
            second === undefined ? handler.call(this, first) : handler.call(this, first, second);
        } catch (error) {
          remember(extra, error);
          throw error;
        }
        if (out instanceof Promise) out.then(undefined, (error: unknown) => remember(extra, error));
        return out;
      },
  );
}

/** The error the handler threw while serving the request with this `extra`, if it threw. */
export function thrownFor(extra: unknown): { error: unknown } | undefined {
  if (typeof extra !== 'object' || extra === null || !thrown.has(extra)) return undefined;
  return { error: thrown.get(extra) };
}
