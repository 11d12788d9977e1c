// `registerMcpTool`: serves a `defineTool` tool from an `McpServer`, so its Zod contract is the MCP contract.
// The SDK is told to accept any object (our schema validates, so INVALID_INPUT comes back as a repairable
// envelope, not as the SDK's text error), and tools/list shows our JSON Schemas with their descriptions.
import {
  type Attributes,
  type Context,
  type Link,
  ProxyTracerProvider,
  SpanKind,
  type TracerProvider,
} from '@opentelemetry/api';
import { z } from 'zod';
import { type ToolResult, toolFailureSchema } from '../contract.js';
import { ToolscopeError } from '../errors.js';
import type { Hasher } from '../hashing.js';
import { internalsOf } from '../internal.js';
import type { SpanOverride } from '../internal-types.js';
import { mcpOutputFacts } from '../output-facts.js';
import * as sc from '../semconv.js';
import type { SafeSpan } from '../telemetry.js';
import type { Tool } from '../types.js';
import { type CallToolResultShape, toCallToolResult } from './call-result.js';
import { wrapRequestHandler } from './handlers.js';
import { serverParent } from './propagation.js';
import { decodeExtra } from './request-context.js';
import { isRecord, lowLevelServerOf, type RawHandler } from './sdk-access.js';
import { callIds, definedToolsOf, mcpServerAttributes, serverStateOf } from './server-state.js';

export type RegisterMcpToolOptions = {
  /** Human-readable title shown by clients. */
  title?: string;
  /** MCP tool annotations; `readOnlyHint` defaults to the tool's effect. Clients treat them as untrusted hints. */
  annotations?: Record<string, unknown>;
};

/**
 * How a `tools/call` of a `defineTool` tool shapes its span, one per call: `onResult` is a method, not a closure
 * made per call. What the model receives is measured on the span before it ends, and then sent.
 */
class McpCallSpan implements SpanOverride {
  readonly name: string;
  readonly kind = SpanKind.SERVER;
  readonly attributes: Attributes;
  readonly parent: Context;
  // MCP semconv: an isError result is `tool_error`; our code stays in toolscope.error.code.
  readonly measuresOutput = true;
  declare links?: Link[];
  declare tracerProvider?: TracerProvider;
  declare executorSignal?: AbortSignal;
  /** The result as sent, once made. */
  sent: CallToolResultShape | undefined;
  readonly #hasher: Hasher;

  constructor(name: string, attributes: Attributes, parent: Context, hasher: Hasher) {
    this.name = name;
    this.attributes = attributes;
    this.parent = parent;
    this.#hasher = hasher;
  }

  onResult(r: ToolResult<unknown>, span: SafeSpan): void {
    this.sent ??= toCallToolResult(r);
    const end: Attributes = {};
    if (span.recording) mcpOutputFacts(this.sent, this.#hasher, end);
    if (!r.ok) end[sc.ATTR_ERROR_TYPE] = sc.ERROR_TYPE_TOOL_ERROR;
    span.setAttributes(end);
  }
}

/** A provider whose tracers make no spans, for tools the server instrumentation skips. */
const SILENT: TracerProvider = new ProxyTracerProvider();
const listWrapped = new WeakSet<object>();

type AnyTool = Tool<z.ZodType, z.ZodType>;

/** Registers `tool` on `server` (an `McpServer`); returns the SDK's registered-tool handle. */
export function registerMcpTool(
  server: object,
  tool: AnyTool,
  options: RegisterMcpToolOptions = {},
): unknown {
  const access = internalsOf(tool);
  const found = lowLevelServerOf(server);
  const registerTool: unknown = Reflect.get(server, 'registerTool');
  if (!access)
    throw new ToolscopeError(
      'INVALID_DEFINITION',
      'registerMcpTool: expected a tool made by defineTool',
    );
  if (!found?.high || typeof registerTool !== 'function') {
    throw new ToolscopeError(
      'INVALID_OPTIONS',
      'registerMcpTool: expected an McpServer of @modelcontextprotocol/sdk or @modelcontextprotocol/server',
    );
  }
  for (const [which, schema] of [
    ['input', tool.inputJsonSchema],
    ['output', tool.outputJsonSchema],
  ] as const) {
    if (schema.type !== 'object') {
      throw new ToolscopeError(
        'INVALID_DEFINITION',
        `registerMcpTool(${tool.name}): MCP needs an object ${which} schema`,
      );
    }
  }
  const { low } = found;
  definedToolsOf(low).set(tool.name, tool);
  if (!listWrapped.has(low)) {
    listWrapped.add(low);
    wrapRequestHandler(
      low,
      'tools/list',
      (original: RawHandler) => async (request, extra) =>
        withOurSchemas(low, await original(request, extra)),
    );
  }

  const spanName = `${sc.SPAN_NAME_MCP_TOOLS_CALL_PREFIX} ${tool.name}`;
  const handler = async (args: unknown, extra: unknown) => {
    const state = serverStateOf(low);
    const e = decodeExtra(extra);
    const { parent, links } = serverParent(e.meta, e.headers);
    const ids = callIds(state, tool.name, e);
    const attributes = mcpServerAttributes(state, low, tool.name, e);
    const callOptions: Record<string, unknown> = {};
    if (ids.callId) callOptions.callId = ids.callId;
    if (ids.conversationId) callOptions.conversationId = ids.conversationId;
    if (ids.idempotencyKey) callOptions.idempotencyKey = ids.idempotencyKey;
    if (state) callOptions.capture = state.capture;
    const provider = state?.skip(tool.name) ? SILENT : state?.options.tracerProvider;
    const override = new McpCallSpan(spanName, attributes, parent, access.internals.hasher);
    // Keys set one by one, not spread in: this object is made on every call.
    if (links) override.links = links;
    if (provider) override.tracerProvider = provider;
    if (e.signal) override.executorSignal = e.signal;
    const result = await access.run(args, callOptions, override);
    // Made by `onResult` as the span ended (the same object is measured and sent), unless no span recorded it.
    return override.sent ?? toCallToolResult(result);
  };

  const annotations = { readOnlyHint: tool.effect === 'read', ...options.annotations };
  const config: Record<string, unknown> = {
    description: tool.description,
    inputSchema: z.looseObject({}),
    annotations,
    _meta: { 'toolscope.dev/version': tool.version, 'toolscope.dev/schema-hash': tool.schemaHash },
  };
  if (options.title !== undefined) config.title = options.title;
  return registerTool.call(server, tool.name, config, handler);
}

const FAILURE_JSON_SCHEMA = withoutDialect(
  z.toJSONSchema(toolFailureSchema, { io: 'output' }) as Record<string, unknown>,
);
const outputSchemas = new WeakMap<object, Record<string, unknown>>();

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/**
 * The advertised output schema: the tool's output, or the failure envelope of an isError result. SDK 1.x
 * clients validate structuredContent even when isError is set (typescript-sdk#1943), so a schema naming only
 * the success shape would turn every repairable envelope into a client-side exception.
 */
function mcpOutputSchemaOf(tool: AnyTool): Record<string, unknown> {
  let schema = outputSchemas.get(tool);
  if (!schema) {
    const { $schema: dialect } = tool.outputJsonSchema;
    schema = {
      ...(typeof dialect === 'string' ? { $schema: dialect } : {}),
      type: 'object',
      anyOf: [withoutDialect(tool.outputJsonSchema), FAILURE_JSON_SCHEMA],
    };
    outputSchemas.set(tool, schema);
  }
  return schema;
}

/** Replaces the SDK's schemas of `defineTool` tools in a tools/list result with the tools' own. */
function withOurSchemas(low: object, result: unknown): unknown {
  if (!isRecord(result) || !Array.isArray(result.tools)) return result;
  const defined = definedToolsOf(low);
  return {
    ...result,
    tools: result.tools.map((entry: unknown) => {
      if (!isRecord(entry) || typeof entry.name !== 'string') return entry;
      const tool = defined.get(entry.name) as AnyTool | undefined;
      if (!tool) return entry;
      return { ...entry, inputSchema: tool.inputJsonSchema, outputSchema: mcpOutputSchemaOf(tool) };
    }),
  };
}
