// Public API of @toolscope/instrument: what users call (defineTool, the MCP adapters, their options and the
// envelope's types). The span attribute names are at `@toolscope/instrument/semconv`, the envelope's Zod schemas
// at `@toolscope/instrument/contract`, the one-call OTel setup at `@toolscope/instrument/setup`. Every export
// here is public contract: add, never rename.

export type { Classification, ClassifyReturn } from './classify.js';
export { defaultClassify } from './classify.js';
export { ENV_CAPTURE_CONTENT, ENV_HASH_KEY } from './config.js';
export type { ToolFailure, ToolResult, ToolSuccess, ValidationIssue } from './contract.js';
export { defineTool } from './define-tool.js';
export type { ToolscopeErrorCode } from './errors.js';
export { ToolscopeError } from './errors.js';
export type {
  IdempotencyRecord,
  IdempotencyStore,
  MemoryIdempotencyStoreOptions,
} from './idempotency.js';
export { DEFAULT_IDEMPOTENCY_TTL_MS, MemoryIdempotencyStore } from './idempotency.js';
export { instrumentMcpClient } from './mcp/instrument-client.js';
export { instrumentMcpServer } from './mcp/instrument-server.js';
export type {
  McpCallInfo,
  McpClientInstrumentationOptions,
  McpServerInstrumentationOptions,
} from './mcp/options.js';
export type { RegisterMcpToolOptions } from './mcp/register-tool.js';
export { registerMcpTool } from './mcp/register-tool.js';
export type { CaptureOptions } from './redact.js';
export type { RetryPolicy } from './retry.js';
export type { JsonSchema } from './schema-hash.js';
export { MCP_META_IDEMPOTENCY_KEY } from './semconv.js';
export { sensitive } from './sensitive.js';
export type { CallOptions, Rejection, Tool, ToolContext, ToolDefinition } from './types.js';
