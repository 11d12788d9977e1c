// Every reach into the MCP SDK's objects, duck-typed in one place, for both majors (@modelcontextprotocol/sdk 1.x,
// @modelcontextprotocol/server and /client 2.x, which keep the same private names): the SDK is an optional peer,
// and a few of the fields used here are private in its types (the request handler map, the tool registry).
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
 * The function the SDK calls for a registered tool: SDK v2's `executor` (made from the handler at registration
 * and again by `update()`, called as `(args, ctx)`), else SDK v1's `handler` (read at each call).
 */
export function toolHandlerKey(tool: Record<string, unknown>): 'executor' | 'handler' {
  return typeof tool.executor === 'function' ? 'executor' : 'handler';
}

/**
 * Wraps the function the SDK calls for a registered tool (private `executor` in v2, `handler` in v1, both set again
 * by the SDK's `update()`) once; a task handler (an object) is left alone.
 */
export function wrapToolHandler(
  high: object | undefined,
  name: string,
  wrap: (
    handler: (...args: unknown[]) => unknown,
    tool: Record<string, unknown>,
  ) => (...args: unknown[]) => unknown,
): void {
  const registry = get(high, '_registeredTools');
  const tool = isRecord(registry) && Object.hasOwn(registry, name) ? registry[name] : undefined;
  if (!isRecord(tool)) return;
  const key = toolHandlerKey(tool);
  const handler = get(tool, key);
  if (typeof handler !== 'function' || wrappedHandlers.has(handler)) return;
  const next = wrap(handler as (...args: unknown[]) => unknown, tool);
  wrappedHandlers.add(next);
  try {
    tool[key] = next;
  } catch {
    // A frozen registry entry: the cause of a throw stays unknown, the call is still traced.
  }
}

const transportKinds = new WeakMap<object, 'pipe' | 'tcp' | 'other'>();

/**
 * `network.transport` of an SDK transport: stdio is a pipe (v2's `serveStdio` connects a `StdioConnectionChannel`),
 * HTTP and SSE run over TCP (v1's `StreamableHTTPServerTransport`, v2's `NodeStreamableHTTPServerTransport`,
 * `WebStandardStreamableHTTPServerTransport` and `createMcpHandler`'s `PerRequestHTTPServerTransport`), others unknown.
 */
export function networkTransportOf(transport: unknown): 'pipe' | 'tcp' | undefined {
  if (typeof transport !== 'object' || transport === null) return undefined;
  let kind = transportKinds.get(transport);
  if (!kind) {
    const name = transport.constructor?.name ?? '';
    kind = name.startsWith('Stdio')
      ? 'pipe'
      : name.includes('HTTP') || name.startsWith('SSE')
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

/** What a public getter method of an SDK object answers now; undefined when it is missing or throws. */
function callGetter(obj: object, method: string): unknown {
  const getter = get(obj, method);
  try {
    return typeof getter === 'function' ? getter.call(obj) : undefined;
  } catch {
    return undefined;
  }
}

/** What a server's `getClientVersion()` (public, set by `initialize`) answers now: the client's info object. */
export function clientInfoOf(server: object): unknown {
  return callGetter(server, 'getClientVersion');
}

/** A string field (`name`, `version`) of a peer's info object, cut to 128 characters, as it comes from the peer. */
export function infoString(info: unknown, key: 'name' | 'version'): string | undefined {
  const value = get(info, key);
  return typeof value === 'string' && value !== '' ? value.slice(0, 128) : undefined;
}

/** The client's own info (private `_clientInfo`, both majors). */
export function ownClientInfo(client: object): unknown {
  return get(client, '_clientInfo');
}

/**
 * The server a client is connected to as it named itself (public `getServerVersion()`, both majors): `serverInfo`
 * of `initialize`, or in the 2026-07-28 revision the `io.modelcontextprotocol/serverInfo` `_meta` of `server/discover`.
 */
export function serverInfoOf(client: object): unknown {
  return callGetter(client, 'getServerVersion');
}

/** The protocol version a client negotiated (public `getNegotiatedProtocolVersion()`, SDK v2 only). */
export function clientProtocolVersion(client: object): string | undefined {
  const version = callGetter(client, 'getNegotiatedProtocolVersion');
  return typeof version === 'string' && version !== '' ? version : undefined;
}

/** The id the client's next request will carry (private `_requestMessageId`, assigned synchronously). */
export function nextRequestId(client: object): number | undefined {
  const id = get(client, '_requestMessageId');
  return typeof id === 'number' ? id : undefined;
}
