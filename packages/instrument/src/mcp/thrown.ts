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
      async function toolHandler(this: unknown, ...args: unknown[]): Promise<unknown> {
        try {
          return await handler.apply(this, args);
        } catch (error) {
          const extra = args[args.length - 1];
          if (typeof extra === 'object' && extra !== null) thrown.set(extra, error);
          throw error;
        }
      },
  );
}

/** The error the handler threw while serving the request with this `extra`, if it threw. */
export function thrownFor(extra: unknown): { error: unknown } | undefined {
  if (typeof extra !== 'object' || extra === null || !thrown.has(extra)) return undefined;
  return { error: thrown.get(extra) };
}
