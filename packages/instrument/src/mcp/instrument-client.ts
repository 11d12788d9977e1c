// `instrumentMcpClient`: a CLIENT span per `tools/call` on a `Client` of @modelcontextprotocol/sdk 1.x or
// @modelcontextprotocol/client 2.x (legacy or 2026-07-28 negotiation), and W3C trace context injected into
// `params._meta` of every request (also when the caller passed no `_meta`), so client and server spans share one
// trace; the span names the server as it named itself.
import { type Attributes, context, SpanKind } from '@opentelemetry/api';
import { afterResponse } from '../after-response.js';
import { readEnvConfig } from '../config.js';
import type { ValidationIssue } from '../contract.js';
import { ToolscopeError } from '../errors.js';
import { createHasher, type Hasher } from '../hashing.js';
import { mcpOutputFacts } from '../output-facts.js';
import { createRedactor } from '../redact.js';
import * as sc from '../semconv.js';
import { type SafeSpan, startSafeSpanOf, withContext } from '../telemetry.js';
import { outcomeOfPlainResult } from './call-result.js';
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
  // The server's info object and its name and version, read again only when the object changes (a reconnect).
  let server: { info: unknown; name: string | undefined; version: string | undefined } = {
    info: undefined,
    name: undefined,
    version: undefined,
  };
  const outputs = new AdvertisedOutputs();
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
    const attributes: Attributes = {
      [sc.ATTR_MCP_METHOD_NAME]: sc.MCP_METHOD_TOOLS_CALL,
      [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
      [sc.ATTR_GEN_AI_TOOL_NAME]: toolName,
    };
    const id = nextRequestId(client);
    if (id !== undefined) attributes[sc.ATTR_JSONRPC_REQUEST_ID] = String(id);
    const session = transportString(transport, 'sessionId');
    if (session) attributes[sc.ATTR_MCP_SESSION_ID] = session;
    if (clientName) attributes[sc.ATTR_TOOLSCOPE_MCP_CLIENT_NAME] = clientName;
    if (clientVersion) attributes[sc.ATTR_TOOLSCOPE_MCP_CLIENT_VERSION] = clientVersion;
    const serverInfo = serverInfoOf(client);
    if (serverInfo !== server.info) {
      server = {
        info: serverInfo,
        name: infoString(serverInfo, 'name'),
        version: infoString(serverInfo, 'version'),
      };
    }
    if (server.name) attributes[sc.ATTR_TOOLSCOPE_MCP_SERVER_NAME] = server.name;
    if (server.version) attributes[sc.ATTR_TOOLSCOPE_MCP_SERVER_VERSION] = server.version;
    const version =
      (saysVersion ? clientProtocolVersion(client) : undefined) ??
      transportString(transport, 'protocolVersion') ??
      negotiatedVersion;
    if (version) attributes[sc.ATTR_MCP_PROTOCOL_VERSION] = version;
    const network = networkTransportOf(transport);
    if (network) attributes[sc.ATTR_NETWORK_TRANSPORT] = network;
    const conv = meta[sc.MCP_META_CONVERSATION_ID];
    if (typeof conv === 'string') attributes[sc.ATTR_GEN_AI_CONVERSATION_ID] = conv;
    if (redact) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = redact(params.arguments ?? {});

    const span = startSafeSpanOf(
      o.tracerProvider,
      spanNameOf(toolName),
      SpanKind.CLIENT,
      attributes,
      undefined,
      undefined,
    );
    const spanContext = span.context;
    injectInto(meta, spanContext);
    try {
      const result = await withContext(spanContext, () =>
        request.call(client, withMeta(message, params, meta), ...rest),
      );
      // What the result says goes on the span once the caller has it (after-response.ts).
      afterResponse(endWithResult, {
        span,
        result,
        redact,
        toolName,
        outputs,
        hasherOf,
        endTime: performance.now(),
      });
      return result;
    } catch (error) {
      const code =
        isRecord(error) && typeof error.code === 'number'
          ? String(error.code)
          : error instanceof Error
            ? error.name
            : '_OTHER';
      span.setAttributes({
        [sc.ATTR_ERROR_TYPE]: code,
        ...(isRecord(error) && typeof error.code === 'number'
          ? { [sc.ATTR_RPC_RESPONSE_STATUS_CODE]: code }
          : {}),
      });
      span.end(error instanceof Error ? error.message : code);
      throw error;
    }
  };
  Object.defineProperty(client, 'request', { configurable: true, writable: true, value: patched });
  return client;
}

function withMeta(
  message: Record<string, unknown>,
  params: Record<string, unknown>,
  meta: Record<string, unknown>,
) {
  if (Object.keys(meta).length > 0) params._meta = meta;
  return { ...message, params };
}

/** One answered client call whose span is still open. */
type ClientCall = {
  span: SafeSpan;
  result: unknown;
  redact: ((v: unknown) => string) | undefined;
  toolName: string;
  outputs: AdvertisedOutputs;
  hasherOf: () => Hasher;
  /** `performance.now()` when the result was back. */
  endTime: number;
};

/** Sets the end-of-call attributes of a client span and ends it, whatever reading the result does. */
function endWithResult(call: ClientCall): void {
  let error: string | undefined;
  try {
    error = recordResult(call);
  } finally {
    call.span.end(error, call.endTime);
  }
}

/** The end-of-call attributes; returns the error code the span ends with, if any. */
function recordResult({ span, result, redact, toolName, outputs, hasherOf }: ClientCall) {
  const brokenContract: ValidationIssue[] | undefined = outputs.check(toolName, result);
  const outcome = outcomeOfPlainResult(result, undefined, undefined);
  // What the agent's model will read: measured where it arrives.
  const attributes: Attributes = {};
  if (span.recording) {
    mcpOutputFacts(result, hasherOf(), attributes);
  }
  if (brokenContract) {
    // The server answered success with a result its own advertised schema refuses: the caller cannot trust it.
    attributes[sc.ATTR_ERROR_TYPE] = sc.ERROR_CODES.INVALID_OUTPUT;
    attributes[sc.ATTR_TOOLSCOPE_ERROR_CODE] = sc.ERROR_CODES.INVALID_OUTPUT;
    attributes[sc.ATTR_TOOLSCOPE_RETRYABLE] = false;
    attributes[sc.ATTR_TOOLSCOPE_VALIDATION_ISSUES] = JSON.stringify(brokenContract);
  } else if (!outcome.ok) {
    attributes[sc.ATTR_ERROR_TYPE] = sc.ERROR_TYPE_TOOL_ERROR;
    attributes[sc.ATTR_TOOLSCOPE_ERROR_CODE] = outcome.code;
    attributes[sc.ATTR_TOOLSCOPE_RETRYABLE] = outcome.retryable;
    if (outcome.reason) attributes[sc.ATTR_TOOLSCOPE_ERROR_REASON] = outcome.reason;
  }
  if (redact && isRecord(result))
    attributes[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = redact(
      result.structuredContent ?? result.content,
    );
  span.setAttributes(attributes);
  return brokenContract ? sc.ERROR_CODES.INVALID_OUTPUT : outcome.ok ? undefined : outcome.code;
}
