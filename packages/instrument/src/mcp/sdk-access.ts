// Every reach into @modelcontextprotocol/sdk objects, duck-typed in one place: the SDK is an optional peer, and
// a few of the fields used here are private in its types (the request handler map, the tool registry).
// Each access checks what it finds and degrades to "unknown" instead of throwing.

export type RawHandler = (request: unknown, extra: unknown) => unknown;

export type LowLevelServer = {
  setRequestHandler: (...args: unknown[]) => unknown;
  handlers: Map<string, RawHandler> | undefined;
  transport: () => unknown;
};

export type RegisteredTool = {
  /** The registry's own record: stable across calls until the tool is removed, so a cache key. */
  raw: object;
  enabled: boolean;
  description: unknown;
  inputSchema: unknown;
  outputSchema: unknown;
  annotations: unknown;
  meta: unknown;
};

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function get(obj: unknown, key: string): unknown {
  if (typeof obj !== 'object' || obj === null) return undefined;
  try {
    return Reflect.get(obj, key);
  } catch {
    return undefined;
  }
}

/** The JSON-RPC level `Server` behind an `McpServer`, or the argument itself when it is one. */
export function lowLevelServerOf(
  server: unknown,
): { low: object; high: object | undefined } | undefined {
  const inner = get(server, 'server');
  if (typeof get(inner, 'setRequestHandler') === 'function')
    return { low: inner as object, high: server as object };
  if (typeof get(server, 'setRequestHandler') === 'function')
    return { low: server as object, high: undefined };
  return undefined;
}

/** The handler map of a protocol object (private `_requestHandlers` in the SDK). */
export function handlerMap(low: object): Map<string, RawHandler> | undefined {
  const map = get(low, '_requestHandlers');
  return map instanceof Map ? (map as Map<string, RawHandler>) : undefined;
}

/** The current transport of a protocol object (public `transport` getter). */
export function transportOf(protocol: object): unknown {
  return get(protocol, 'transport');
}

/** The registry's own record of a tool (private `_registeredTools`); `null` when the registry is not readable. */
export function toolRecord(
  high: object | undefined,
  name: string,
): Record<string, unknown> | undefined | null {
  const registry = get(high, '_registeredTools');
  if (!isRecord(registry)) return null;
  if (!Object.hasOwn(registry, name)) return undefined;
  const tool = registry[name];
  return isRecord(tool) ? tool : undefined;
}

/** A tool of an `McpServer` registry (private `_registeredTools`); `null` when the registry is not readable. */
export function registeredTool(
  high: object | undefined,
  name: string,
): RegisteredTool | undefined | null {
  const tool = toolRecord(high, name);
  if (!tool) return tool;
  return {
    raw: tool,
    enabled: tool.enabled !== false,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
    meta: tool._meta,
  };
}

const wrappedHandlers = new WeakSet<object>();

/**
 * Wraps the handler function of a registered tool (private `handler`, set again by the SDK's `update()`) once;
 * a task handler (an object) is left alone.
 */
export function wrapToolHandler(
  high: object | undefined,
  name: string,
  wrap: (handler: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown,
): void {
  const registry = get(high, '_registeredTools');
  const tool = isRecord(registry) && Object.hasOwn(registry, name) ? registry[name] : undefined;
  const handler = get(tool, 'handler');
  if (typeof handler !== 'function' || wrappedHandlers.has(handler) || !isRecord(tool)) return;
  const next = wrap(handler as (...args: unknown[]) => unknown);
  wrappedHandlers.add(next);
  try {
    tool.handler = next;
  } catch {
    // A frozen registry entry: the cause of a throw stays unknown, the call is still traced.
  }
}

const transportKinds = new WeakMap<object, 'pipe' | 'tcp' | 'other'>();

/** `network.transport` of an SDK transport: stdio is a pipe, HTTP and SSE run over TCP, others unknown. */
export function networkTransportOf(transport: unknown): 'pipe' | 'tcp' | undefined {
  if (typeof transport !== 'object' || transport === null) return undefined;
  let kind = transportKinds.get(transport);
  if (!kind) {
    const name = transport.constructor?.name ?? '';
    kind = name.startsWith('Stdio')
      ? 'pipe'
      : name.startsWith('StreamableHTTP') || name.startsWith('SSE')
        ? 'tcp'
        : 'other';
    transportKinds.set(transport, kind);
  }
  return kind === 'other' ? undefined : kind;
}

/** A string property of a transport (`sessionId`, `protocolVersion`). */
export function transportString(
  transport: unknown,
  key: 'sessionId' | 'protocolVersion',
): string | undefined {
  const value = get(transport, key);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What a server's `getClientVersion()` (public, set by `initialize`) answers now: the client's info object. */
export function clientInfoOf(server: object): unknown {
  const getter = get(server, 'getClientVersion');
  try {
    return typeof getter === 'function' ? getter.call(server) : undefined;
  } catch {
    return undefined;
  }
}

/** The `name` of a client info object, cut to 128 characters, as it comes from the peer. */
export function clientNameOfInfo(info: unknown): string | undefined {
  const name = get(info, 'name');
  return typeof name === 'string' && name !== '' ? name.slice(0, 128) : undefined;
}

/**
 * The MCP client's name: a server's `getClientVersion()` (public, set by `initialize`), or a client's own
 * `clientInfo` (private `_clientInfo`); cut to 128 characters, as it comes from the peer.
 */
export function clientNameOf(protocol: object, side: 'server' | 'client'): string | undefined {
  return clientNameOfInfo(
    side === 'server' ? clientInfoOf(protocol) : get(protocol, '_clientInfo'),
  );
}

/** The id the client's next request will carry (private `_requestMessageId`, assigned synchronously). */
export function nextRequestId(client: object): number | undefined {
  const id = get(client, '_requestMessageId');
  return typeof id === 'number' ? id : undefined;
}

export type DecodedExtra = {
  requestId: string | undefined;
  sessionId: string | undefined;
  meta: Record<string, unknown> | undefined;
  headers: Record<string, unknown> | undefined;
  signal: AbortSignal | undefined;
};

/** The handler `extra` of a request, decoded field by field. */
export function decodeExtra(extra: unknown): DecodedExtra {
  // The SDK passes a plain object: read it directly (this runs on every call), checking each field's type.
  const e = isRecord(extra) ? extra : {};
  const requestId = e.requestId;
  const sessionId = e.sessionId;
  const meta = e._meta;
  const info = e.requestInfo;
  const headers = isRecord(info) ? info.headers : undefined;
  const signal = e.signal;
  return {
    requestId:
      typeof requestId === 'string' || typeof requestId === 'number'
        ? String(requestId)
        : undefined,
    sessionId: typeof sessionId === 'string' ? sessionId : undefined,
    meta: isRecord(meta) ? meta : undefined,
    headers: isRecord(headers) ? headers : undefined,
    signal: signal instanceof AbortSignal ? signal : undefined,
  };
}
