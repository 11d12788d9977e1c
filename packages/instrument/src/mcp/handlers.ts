// Wraps request handlers of a JSON-RPC `Server` by method, both those already set and those set later
// (McpServer installs its tools/call handler lazily, on the first registered tool).
import { handlerMap, type RawHandler } from './sdk-access.js';

export type HandlerWrapper = (original: RawHandler) => RawHandler;

const wrapped = new WeakSet<RawHandler>();
const wrappersByServer = new WeakMap<object, Map<string, HandlerWrapper[]>>();

function applyAll(low: object, map: Map<string, RawHandler>): void {
  const byMethod = wrappersByServer.get(low);
  if (!byMethod) return;
  for (const [method, wrappers] of byMethod) {
    const current = map.get(method);
    if (!current || wrapped.has(current)) continue;
    let handler = current;
    for (const wrap of wrappers) handler = wrap(handler);
    wrapped.add(handler);
    map.set(method, handler);
  }
}

/** Makes `wrap` apply to the handler of `method` on `low`, now and whenever it is set again. */
export function wrapRequestHandler(low: object, method: string, wrap: HandlerWrapper): boolean {
  const map = handlerMap(low);
  if (!map) return false;
  let byMethod = wrappersByServer.get(low);
  if (!byMethod) {
    byMethod = new Map();
    wrappersByServer.set(low, byMethod);
    const original: unknown = Reflect.get(low, 'setRequestHandler');
    if (typeof original === 'function') {
      // An own property shadowing the prototype method: later handlers get wrapped as they are set.
      Object.defineProperty(low, 'setRequestHandler', {
        configurable: true,
        writable: true,
        value: function setRequestHandler(this: unknown, ...args: unknown[]) {
          const out: unknown = original.apply(low, args);
          applyAll(low, map);
          return out;
        },
      });
    }
  }
  const list = byMethod.get(method) ?? [];
  list.push(wrap);
  byMethod.set(method, list);
  const current = map.get(method);
  if (current && wrapped.has(current)) {
    // Already wrapped by an earlier call: wrap once more with the new wrapper only.
    const next = wrap(current);
    wrapped.add(next);
    map.set(method, next);
  } else {
    applyAll(low, map);
  }
  return true;
}
