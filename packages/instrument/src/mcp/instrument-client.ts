// `instrumentMcpClient`: a CLIENT span per `tools/call` on a `Client` of @modelcontextprotocol/sdk 1.x or
// @modelcontextprotocol/client 2.x (legacy or 2026-07-28 negotiation), and W3C trace context injected into
// `params._meta` of every request (also when the caller passed no `_meta`), so client and server spans share one
// trace; the span names the server as it named itself.
import { type Attributes, context, SpanKind } from '@opentelemetry/api';
import { readEnvConfig } from '../config.js';
import type { ValidationIssue } from '../contract.js';
import { ToolscopeError } from '../errors.js';
import { createHasher, type Hasher } from '../hashing.js';
import type { LogicalCall } from '../logical-call.js';
import { createRedactor } from '../redact.js';
import * as sc from '../semconv.js';
import {
  brokenContractFailure,
  rpcFailure,
  setClient,
  setFailure,
  setLogical,
  setMcpCall,
  setMcpResult,
  setRequestIds,
  setServer,
  toolErrorFailure,
} from '../span-contract.js';
import { type SafeSpan, startSafeSpanOf, withContext } from '../telemetry.js';
import { outcomeOfPlainResult } from './call-result.js';
import { ClientLegs } from './client-legs.js';
import { AdvertisedOutputs } from './client-outputs.js';
import {
  type McpClientInstrumentationOptions,
  mcpClientOptionsSchema,
  parseOptions,
  skipper,
} from './options.js';
import { injectInto } from './propagation.js';
import {
  clientProtocolVersion,
  infoString,
  isRecord,
  networkTransportOf,
  nextRequestId,
  ownClientInfo,
  serverInfoOf,
  transportOf,
  transportString,
} from './sdk-access.js';

type RequestFn = (request: unknown, ...rest: unknown[]) => Promise<unknown>;
const instrumented = new WeakSet<object>();
// Tool names are the server's: a bound on the names kept, so a server inventing names cannot grow the map.
const MAX_SPAN_NAMES = 1024;

/** Instruments an MCP `Client`; returns the same client. */
export function instrumentMcpClient<C extends object>(
  client: C,
  options?: McpClientInstrumentationOptions,
): C {
  const o = parseOptions(mcpClientOptionsSchema, options, 'instrumentMcpClient');
  const original: unknown = Reflect.get(client, 'request');
  if (typeof original !== 'function') {
    throw new ToolscopeError(
      'INVALID_OPTIONS',
      'instrumentMcpClient: expected a Client of @modelcontextprotocol/sdk or @modelcontextprotocol/client',
    );
  }
  if (instrumented.has(client)) return client;
  instrumented.add(client);
  const request = original as RequestFn;
  const skip = skipper(o.skipTools);
  const env = readEnvConfig();
  const capture = o.captureContent ?? env.captureContent;
  const redact =
    capture === false
      ? undefined
      : createRedactor(typeof capture === 'object' ? capture : {}, undefined);
  // Made at the first traced call, so a client that never calls a tool is not warned about a missing key.
  let hasher: Hasher | undefined;
  const hasherOf = (): Hasher => {
    hasher ??= createHasher(o.hashKey ?? env.hashKey);
    return hasher;
  };
  let negotiatedVersion: string | undefined;
  // SDK v2 says the negotiated version itself (both eras; there is no `initialize` in 2026-07-28).
  const saysVersion = typeof Reflect.get(client, 'getNegotiatedProtocolVersion') === 'function';
  const own = ownClientInfo(client);
  const clientName = infoString(own, 'name');
  const clientVersion = infoString(own, 'version');
  // The server's info object, read again only when the object changes (a reconnect), and the span's attributes
  // naming both peers, set once the span has started: start attributes are copied three times by the SDK (decision
  // 0026), these once.
  let server: { info: unknown; peers: Attributes } = {
    info: undefined,
    peers: setClient({}, clientName, clientVersion),
  };
  const outputs = new AdvertisedOutputs();
  const legs = new ClientLegs();
  legs.watchInputHandlers(client, () => {
    const era = saysVersion ? clientProtocolVersion(client) : negotiatedVersion;
    return !isModernRevision(era);
  });
  // `tools/call {tool}` made once per tool instead of a new string per call.
  const spanNames = new Map<string, string>();
  const spanNameOf = (tool: string): string => {
    let name = spanNames.get(tool);
    if (name === undefined) {
      name = `${sc.SPAN_NAME_MCP_TOOLS_CALL_PREFIX} ${tool}`;
      if (spanNames.size < MAX_SPAN_NAMES) spanNames.set(tool, name);
    }
    return name;
  };
  const conversationId = (): string | undefined => {
    if (typeof o.conversationId === 'string') return o.conversationId;
    try {
      const id = o.conversationId?.();
      return typeof id === 'string' && id.length > 0 ? id : undefined;
    } catch {
      return undefined;
    }
  };

  const patched = async function (
    this: unknown,
    message: unknown,
    ...rest: unknown[]
  ): Promise<unknown> {
    if (!isRecord(message) || typeof message.method !== 'string')
      return request.call(client, message, ...rest);
    // Object.assign, not spread: on Node 20 a spread copy that then gains a key (`_meta`, `traceparent`) takes
    // V8's slow path, about 1 µs per call (decision 0025).
    const params: Record<string, unknown> = Object.assign(
      {},
      isRecord(message.params) ? message.params : undefined,
    );
    const meta: Record<string, unknown> = Object.assign(
      {},
      isRecord(params._meta) ? params._meta : undefined,
    );
    const toolName =
      message.method === sc.MCP_METHOD_TOOLS_CALL && typeof params.name === 'string'
        ? params.name
        : undefined;
    const conversation = conversationId();
    if (conversation && meta[sc.MCP_META_CONVERSATION_ID] === undefined)
      meta[sc.MCP_META_CONVERSATION_ID] = conversation;

    if (toolName === undefined || skip(toolName)) {
      injectInto(meta, context.active());
      const out = await request.call(client, withMeta(message, params, meta), ...rest);
      if (
        message.method === 'initialize' &&
        isRecord(out) &&
        typeof out.protocolVersion === 'string'
      ) {
        negotiatedVersion = out.protocolVersion;
      }
      if (message.method === 'tools/list') outputs.remember(out);
      return out;
    }

    const transport = transportOf(client);
    const serverInfo = serverInfoOf(client);
    if (serverInfo !== server.info) {
      const peers = setClient({}, clientName, clientVersion);
      setServer(peers, infoString(serverInfo, 'name'), infoString(serverInfo, 'version'));
      server = { info: serverInfo, peers };
    }
    const version =
      (saysVersion ? clientProtocolVersion(client) : undefined) ??
      transportString(transport, 'protocolVersion') ??
      negotiatedVersion;
    const attributes = setMcpCall({}, toolName, version, networkTransportOf(transport));
    const id = nextRequestId(client);
    const conv = meta[sc.MCP_META_CONVERSATION_ID];
    setRequestIds(
      attributes,
      id === undefined ? undefined : String(id),
      transportString(transport, 'sessionId'),
      typeof conv === 'string' ? conv : undefined,
      undefined,
    );
    if (redact) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = redact(params.arguments ?? {});

    const span = startSafeSpanOf(
      o.tracerProvider,
      spanNameOf(toolName),
      SpanKind.CLIENT,
      attributes,
      undefined,
      undefined,
    );
    span.setAttributes(server.peers);
    const spanContext = span.context;
    injectInto(meta, spanContext);
    // In 2026-07-28 the SDK sends the legs of a multi round-trip call itself: followed on the transport.
    const modern = id !== undefined && isModernRevision(version);
    if (modern) legs.watch(transport);
    const token = legs.begin();
    const legCall = modern ? legs.open(String(id)) : undefined;
    let result: unknown;
    try {
      result = await withContext(
        spanContext,
        send,
        request,
        client,
        withMeta(message, params, meta),
        rest,
      );
    } catch (error) {
      const logical = legs.end(token, legCall);
      const code =
        isRecord(error) && typeof error.code === 'number'
          ? String(error.code)
          : error instanceof Error
            ? error.name
            : '_OTHER';
      const end: Attributes =
        isRecord(error) && typeof error.code === 'number'
          ? setFailure({}, rpcFailure(code))
          : setFailure({}, { type: code });
      if (logical) setLogical(end, logical);
      span.setAttributes(end);
      span.end(error instanceof Error ? error.message : code);
      throw error;
    }
    // Ended before the caller has the result: a flush right after the call exports it (decision 0047).
    const logical = legs.end(token, legCall);
    endWithResult(span, result, redact, toolName, outputs, hasherOf, logical);
    return result;
  };
  Object.defineProperty(client, 'request', { configurable: true, writable: true, value: patched });
  return client;
}

/** The SDK's own `request`, called as the caller called it (a function, not a closure made per call). */
function send(request: RequestFn, client: object, message: unknown, rest: unknown[]) {
  return request.call(client, message, ...rest);
}

function withMeta(
  message: Record<string, unknown>,
  params: Record<string, unknown>,
  meta: Record<string, unknown>,
) {
  for (const _key in meta) {
    params._meta = meta;
    break;
  }
  return { ...message, params };
}

/** Sets the end-of-call attributes of a client span and ends it, whatever reading the result does. */
function endWithResult(
  span: SafeSpan,
  result: unknown,
  redact: ((v: unknown) => string) | undefined,
  toolName: string,
  outputs: AdvertisedOutputs,
  hasherOf: () => Hasher,
  logical: LogicalCall | undefined,
): void {
  let error: string | undefined;
  try {
    const brokenContract: ValidationIssue[] | undefined = outputs.check(toolName, result);
    const outcome = outcomeOfPlainResult(result, undefined, undefined);
    // What the agent's model will read: measured where it arrives.
    const attributes: Attributes = {};
    if (span.recording) {
      setMcpResult(attributes, result, hasherOf(), redact);
      if (logical) setLogical(attributes, logical);
    }
    if (brokenContract) {
      // The server answered success with a result its own advertised schema refuses: the caller cannot trust it.
      setFailure(attributes, brokenContractFailure(brokenContract));
      error = sc.ERROR_CODES.INVALID_OUTPUT;
    } else if (!outcome.ok) {
      setFailure(attributes, toolErrorFailure(outcome));
      error = outcome.code;
    }
    span.setAttributes(attributes);
  } finally {
    span.end(error);
  }
}

/** Whether a protocol version is the stateless 2026-07-28 revision or later (dates compare as strings). */
function isModernRevision(version: string | undefined): boolean {
  return version !== undefined && version >= '2026-07-28';
}
