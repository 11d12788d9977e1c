// `instrumentMcpServer`: one SERVER span per `tools/call` on an `McpServer` (or a low-level `Server`) of
// @modelcontextprotocol/sdk 1.x or @modelcontextprotocol/server 2.x, for tools registered before or after, with
// trace context from `params._meta`; one span per logical call across its input rounds and its task's polls.
import { diag } from '@opentelemetry/api';
import { ToolscopeError } from '../errors.js';
import * as sc from '../semconv.js';
import { wrapRequestHandler } from './handlers.js';
import { watchInputRequests } from './input-rounds.js';
import { listContracts } from './list-contracts.js';
import {
  type McpServerInstrumentationOptions,
  mcpServerOptionsSchema,
  parseOptions,
  type ResolvedMcpServerOptions,
} from './options.js';
import { plainToolsCall } from './plain-tool.js';
import { isRecord, lowLevelServerOf, type RawHandler } from './sdk-access.js';
import { taskPolls } from './server-legs.js';
import { createServerState, definedToolsOf, serverStateOf } from './server-state.js';

// Options parsed once per options object: SDK v2's serving entries call a factory per connection or per request,
// and a factory passes the same options each time (an options object changed after its first use keeps its first
// reading).
const parsedOptions = new WeakMap<object, ResolvedMcpServerOptions>();
let defaultOptions: ResolvedMcpServerOptions | undefined;

function resolveOptions(options: McpServerInstrumentationOptions | undefined) {
  if (options === undefined) {
    defaultOptions ??= parseOptions(mcpServerOptionsSchema, {}, 'instrumentMcpServer');
    return defaultOptions;
  }
  let resolved = parsedOptions.get(options);
  if (!resolved) {
    resolved = parseOptions(mcpServerOptionsSchema, options, 'instrumentMcpServer');
    parsedOptions.set(options, resolved);
  }
  return resolved;
}

/**
 * Instruments an MCP server. Returns the same server. Calling it twice is harmless (the first options stay).
 * `defineTool` tools registered with `registerMcpTool` keep their own single span and use these options.
 */
export function instrumentMcpServer<S extends object>(
  server: S,
  options?: McpServerInstrumentationOptions,
): S {
  const resolved = resolveOptions(options);
  const found = lowLevelServerOf(server);
  if (!found) {
    throw new ToolscopeError(
      'INVALID_OPTIONS',
      'instrumentMcpServer: expected an McpServer or Server of @modelcontextprotocol/sdk or @modelcontextprotocol/server',
    );
  }
  const { low, high } = found;
  if (serverStateOf(low)) return server;
  const state = createServerState(low, high, resolved);
  const defined = definedToolsOf(low);
  const ok =
    wrapRequestHandler(low, 'initialize', (original: RawHandler) => async (request, extra) => {
      const result = await original(request, extra);
      if (isRecord(result) && typeof result.protocolVersion === 'string')
        state.negotiatedVersion = result.protocolVersion;
      return result;
    }) &&
    wrapRequestHandler(
      low,
      sc.MCP_METHOD_TOOLS_CALL,
      plainToolsCall(state, (name) => defined.has(name)),
    ) &&
    wrapRequestHandler(low, 'tools/list', listContracts(state, defined)) &&
    // A task's polls belong to the call that created it (server-legs.ts).
    wrapRequestHandler(low, sc.MCP_METHOD_TASKS_GET, taskPolls(state, sc.MCP_METHOD_TASKS_GET)) &&
    wrapRequestHandler(
      low,
      sc.MCP_METHOD_TASKS_RESULT,
      taskPolls(state, sc.MCP_METHOD_TASKS_RESULT),
    );
  // Input a 2025-era call asks for inside its own request counts as its legs (input-rounds.ts).
  watchInputRequests(low);
  if (!ok)
    diag.warn(
      '@toolscope/instrument: this MCP SDK version keeps its handlers elsewhere; tools/call is not traced',
    );
  return server;
}
