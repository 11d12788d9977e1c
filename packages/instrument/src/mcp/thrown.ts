// What a plain MCP tool threw. The SDK turns a handler's throw into an isError result with the message as text,
// so the cause (its type) is gone by the time tools/call returns: the handler is wrapped to keep the error,
// keyed by the request's `extra` object, which the SDK hands to the handler unchanged.
import { wrapToolHandler } from './sdk-access.js';

const thrown = new WeakMap<object, unknown>();

/** Makes the registered handler of `name` remember what it throws for this request. */
export function keepThrown(high: object | undefined, name: string): void {
  wrapToolHandler(
    high,
    name,
    (handler) =>
      // Not an async function: the handler's own promise is passed on, without a tick more per call.
      function toolHandler(this: unknown, ...args: unknown[]): unknown {
        const extra = args[args.length - 1];
        const keep = (error: unknown): never => {
          if (typeof extra === 'object' && extra !== null) thrown.set(extra, error);
          throw error;
        };
        let out: unknown;
        try {
          out = handler.apply(this, args);
        } catch (error) {
          return keep(error);
        }
        return out instanceof Promise ? out.then(undefined, keep) : out;
      },
  );
}

/** The error the handler threw while serving the request with this `extra`, if it threw. */
export function thrownFor(extra: unknown): { error: unknown } | undefined {
  if (typeof extra !== 'object' || extra === null || !thrown.has(extra)) return undefined;
  return { error: thrown.get(extra) };
}
