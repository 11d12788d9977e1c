// Every span attribute, span name and code value Toolscope emits or reads: the public span contract (docs/span-contract.md).
// Unstable OTel GenAI/MCP semconv names are copied here as `as const` strings, as OTel contrib instrumentations do,
// so that no other file spells an attribute name. This module imports nothing: the collector reads it without the SDK.

/** OTel GenAI semantic conventions used on tool spans. */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name' as const;
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name' as const;
export const ATTR_GEN_AI_TOOL_DESCRIPTION = 'gen_ai.tool.description' as const;
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id' as const;
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id' as const;
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments' as const;
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result' as const;
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool' as const;

/** General OTel semantic conventions. */
export const ATTR_ERROR_TYPE = 'error.type' as const;
export const ATTR_EXCEPTION_TYPE = 'exception.type' as const;
export const ATTR_EXCEPTION_MESSAGE = 'exception.message' as const;
export const ATTR_EXCEPTION_STACKTRACE = 'exception.stacktrace' as const;
/** OTel's span event for a thrown error, recorded on the tool's span (docs/contracts.md). */
export const EVENT_EXCEPTION = 'exception' as const;
/** Caps of the exception event: the message always (redacted), the stack only with content capture. */
export const MAX_EXCEPTION_MESSAGE_CHARS = 500;
export const MAX_EXCEPTION_STACK_CHARS = 4000;

/** OTel MCP semantic conventions (set by the MCP adapter). */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name' as const;
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version' as const;
export const ATTR_MCP_SESSION_ID = 'mcp.session.id' as const;
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id' as const;
export const ATTR_NETWORK_TRANSPORT = 'network.transport' as const;
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code' as const;

/** Toolscope attributes. */
export const ATTR_TOOLSCOPE_SCHEMA_VERSION = 'toolscope.schema.version' as const;
export const ATTR_TOOLSCOPE_SCHEMA_HASH = 'toolscope.schema.hash' as const;
export const ATTR_TOOLSCOPE_ATTEMPT = 'toolscope.attempt' as const;
export const ATTR_TOOLSCOPE_EFFECT = 'toolscope.effect' as const;
export const ATTR_TOOLSCOPE_ERROR_CODE = 'toolscope.error.code' as const;
export const ATTR_TOOLSCOPE_ERROR_REASON = 'toolscope.error.reason' as const;
export const ATTR_TOOLSCOPE_RETRYABLE = 'toolscope.retryable' as const;
export const ATTR_TOOLSCOPE_PARTIAL_EFFECT = 'toolscope.partial_effect' as const;
export const ATTR_TOOLSCOPE_IDEMPOTENCY_KEY_HASH = 'toolscope.idempotency_key.hash' as const;
export const ATTR_TOOLSCOPE_INPUT_HASH = 'toolscope.input.hash' as const;
export const ATTR_TOOLSCOPE_INPUT_SHAPE = 'toolscope.input.shape' as const;
export const ATTR_TOOLSCOPE_VALIDATION_ISSUES = 'toolscope.validation.issues' as const;
/** Added to the contract: true when an idempotency key replayed a stored result without executing. */
export const ATTR_TOOLSCOPE_IDEMPOTENT_REPLAY = 'toolscope.idempotent_replay' as const;

/**
 * The MCP client's name (its `clientInfo.name`): on server spans as the server learned it in `initialize`, on
 * client spans as the client calls itself. No OTel convention names it yet; it answers "who still calls this".
 */
export const ATTR_TOOLSCOPE_MCP_CLIENT_NAME = 'toolscope.mcp.client.name' as const;
/** The MCP client's version (its `clientInfo.version`), beside its name (docs/mcp.md). */
export const ATTR_TOOLSCOPE_MCP_CLIENT_VERSION = 'toolscope.mcp.client.version' as const;
/**
 * On client spans, the server the call went to as it names itself (`serverInfo` of `initialize`, or the
 * `io.modelcontextprotocol/serverInfo` `_meta` of `server/discover` and of results in the 2026-07-28 revision).
 */
export const ATTR_TOOLSCOPE_MCP_SERVER_NAME = 'toolscope.mcp.server.name' as const;
export const ATTR_TOOLSCOPE_MCP_SERVER_VERSION = 'toolscope.mcp.server.version' as const;

/**
 * One logical call (docs/mcp.md): the legs of a multi round-trip call (each a `tools/call` under a new JSON-RPC
 * id, linked by `requestState`) and a task (its `tasks/get` polls to a terminal status) make one span from the
 * first request to the final result. Legs counts the call's rounds: 1, plus one per round of input it asked for
 * (in 2026-07-28 each a request of its own; on a 2025 connection the SDK's shim and a handler's own
 * `elicitInput` run them inside one request); input wait is the time between an `input_required` answer (or an
 * input request sent to the client) and the next leg; polls, the server's poll interval and the task's last
 * status are set on a call that became a task. Absent: one leg, no task.
 */
export const ATTR_TOOLSCOPE_CALL_LEGS = 'toolscope.call.legs' as const;
export const ATTR_TOOLSCOPE_CALL_INPUT_WAIT_MS = 'toolscope.call.input_wait_ms' as const;
export const ATTR_TOOLSCOPE_TASK_POLLS = 'toolscope.task.polls' as const;
export const ATTR_TOOLSCOPE_TASK_POLL_INTERVAL_MS = 'toolscope.task.poll_interval_ms' as const;
export const ATTR_TOOLSCOPE_TASK_STATUS = 'toolscope.task.status' as const;
/**
 * Linking attributes (decision 0046): where one process sees only part of a logical call (a stateless 2026-07-28
 * server behind a load balancer, a client whose task traffic bypasses it), each part is a span of its own and the
 * collector joins them. All three are keyed hashes (the input hash's key and HMAC, first 16 hex), never the value:
 * `resumes` is the hash of the `requestState` the part's first request echoed (it continues a call begun
 * elsewhere), `awaits` the hash of the `requestState` of the part's last answer (it ended waiting for a leg it
 * never saw; an answer without one hashes the empty string), `task.id.hash` the hash of the task's `taskId`.
 * A part that `awaits` X and a later part that `resumes` X, of the same tool and input hash, are one call; so are
 * every span and `tasks/get` part with the same `task.id.hash`.
 */
export const ATTR_TOOLSCOPE_CALL_RESUMES = 'toolscope.call.resumes' as const;
export const ATTR_TOOLSCOPE_CALL_AWAITS = 'toolscope.call.awaits' as const;
export const ATTR_TOOLSCOPE_TASK_ID_HASH = 'toolscope.task.id.hash' as const;
/** Task statuses (`tasks/get`, the Tasks extension); the last three are terminal. */
export const TASK_STATUSES = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** `error.type` of a task the client or server cancelled before it had a result. */
export const ERROR_TYPE_CANCELLED = 'cancelled' as const;
/** `resultType` values of a 2026-07-28 result that is not final yet. */
export const RESULT_TYPE_INPUT_REQUIRED = 'input_required' as const;
export const RESULT_TYPE_TASK = 'task' as const;

/**
 * What a call's result costs the model's context (output-size.ts): UTF-8 bytes of the result as the model sees
 * it (the envelope; for MCP, `content` plus `structuredContent`) and approximate tokens; `estimated` when the
 * tokens were scaled from a prefix of a huge result. For MCP results also the number of content items and of
 * `resource_link` items among them (return the index first, the content after).
 */
export const ATTR_TOOLSCOPE_OUTPUT_BYTES = 'toolscope.output.bytes' as const;
export const ATTR_TOOLSCOPE_OUTPUT_TOKENS = 'toolscope.output.tokens' as const;
export const ATTR_TOOLSCOPE_OUTPUT_ESTIMATED = 'toolscope.output.estimated' as const;
export const ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS = 'toolscope.output.content_items' as const;
export const ATTR_TOOLSCOPE_OUTPUT_RESOURCE_LINKS = 'toolscope.output.resource_links' as const;
/**
 * Keyed hash (the input hash's key and HMAC, first 16 hex) of the canonical result as the model reads it: the
 * envelope of a `defineTool` call, `content` plus `structuredContent` of an MCP result. Equal results, equal hash.
 */
export const ATTR_TOOLSCOPE_OUTPUT_HASH = 'toolscope.output.hash' as const;
/**
 * With content capture on, the output that broke the output contract (INVALID_OUTPUT), redacted as
 * `gen_ai.tool.call.result` is: the caller got the envelope, so this is the only record of what the service
 * answered, and what a regression fixture replays through today's output schema (docs/fixtures.md).
 */
export const ATTR_TOOLSCOPE_OUTPUT_REJECTED = 'toolscope.output.rejected' as const;

/** Deprecation of a tool (`defineTool({ deprecated })`, MCP annotations or description), on every call span. */
export const ATTR_TOOLSCOPE_DEPRECATED = 'toolscope.deprecated' as const;
export const ATTR_TOOLSCOPE_DEPRECATED_REPLACED_BY = 'toolscope.deprecated.replaced_by' as const;
export const ATTR_TOOLSCOPE_DEPRECATED_SUNSET = 'toolscope.deprecated.sunset' as const;

/**
 * The contract span (docs/contracts.md): one per process, tracer provider and (tool, schema hash), a root span
 * of its own named `tool_contract {tool}`. Its own attribute names, so no dialect mistakes it for a call.
 */
export const SPAN_NAME_TOOL_CONTRACT_PREFIX = 'tool_contract' as const;
export const ATTR_TOOLSCOPE_CONTRACT_NAME = 'toolscope.contract.name' as const;
export const ATTR_TOOLSCOPE_CONTRACT_VERSION = 'toolscope.contract.version' as const;
export const ATTR_TOOLSCOPE_CONTRACT_HASH = 'toolscope.contract.hash' as const;
/** The tool's `tools/list` entry as JSON: name, description, inputSchema, outputSchema, annotations. */
export const ATTR_TOOLSCOPE_CONTRACT_ENTRY = 'toolscope.contract.entry' as const;
/** UTF-8 bytes of that entry, as the sender measured it (the collector may cut a very long entry). */
export const ATTR_TOOLSCOPE_CONTRACT_BYTES = 'toolscope.contract.bytes' as const;
/** Where the contract was read: `defineTool` or `tools/list` (a plain MCP tool). */
export const ATTR_TOOLSCOPE_CONTRACT_ORIGIN = 'toolscope.contract.origin' as const;

/** Span event recorded for each attempt that failed before the executor retried it. */
export const EVENT_TOOLSCOPE_ATTEMPT_FAILED = 'toolscope.attempt.failed' as const;

/** Span names. */
export const SPAN_NAME_EXECUTE_TOOL_PREFIX = 'execute_tool' as const;
export const SPAN_NAME_MCP_TOOLS_CALL_PREFIX = 'tools/call' as const;

/** The envelope's failure codes (docs/defining-tools.md). */
export const ERROR_CODES = {
  INVALID_INPUT: 'INVALID_INPUT',
  INVALID_OUTPUT: 'INVALID_OUTPUT',
  RETRYABLE: 'RETRYABLE',
  REJECTED: 'REJECTED',
  FAILED: 'FAILED',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** `error.type` used by the MCP adapter for an `isError` tool result. */
export const ERROR_TYPE_TOOL_ERROR = 'tool_error' as const;

/** Declared effect of a tool. */
export const EFFECTS = { read: 'read', write: 'write' } as const;
export type Effect = keyof typeof EFFECTS;

/** Caps on the validation-issues attribute. */
export const MAX_VALIDATION_ISSUES = 20;
export const MAX_VALIDATION_ISSUE_CHARS = 200;

/** Instrumentation scope name reported on every span. */
export const INSTRUMENTATION_SCOPE = '@toolscope/instrument' as const;

/** MCP `tools/call` method name and the `_meta` keys Toolscope reads and writes besides W3C trace context. */
export const MCP_METHOD_TOOLS_CALL = 'tools/call' as const;
/** A task's poll (Tasks extension `io.modelcontextprotocol/tasks`); also the span name of a poll seen alone. */
export const MCP_METHOD_TASKS_GET = 'tasks/get' as const;
/**
 * What a server asks its client for input with: requests of its own on a 2025 connection, requests embedded in an
 * `input_required` answer in 2026-07-28.
 */
export const MCP_INPUT_METHODS = [
  'elicitation/create',
  'sampling/createMessage',
  'roots/list',
] as const;
/** The 2025-11-25 Tasks extension's fetch of a finished task's result. */
export const MCP_METHOD_TASKS_RESULT = 'tasks/result' as const;
export const MCP_META_CONVERSATION_ID = 'toolscope.dev/conversation-id' as const;
export const MCP_META_CALL_ID = 'toolscope.dev/call-id' as const;
/** Idempotency key of a write called through MCP (`registerMcpTool`); hashed on the span, never stored. */
export const MCP_META_IDEMPOTENCY_KEY = 'toolscope.dev/idempotency-key' as const;
/**
 * `_meta` keys of the 2026-07-28 revision: every request carries the envelope (protocol version, client
 * capabilities, client info) that `initialize` used to say once; `server/discover` answers and results may carry
 * the server's info. The SDK v2 exports the same strings (`CLIENT_INFO_META_KEY` and the others).
 */
export const MCP_META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion' as const;
export const MCP_META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities' as const;
export const MCP_META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo' as const;
export const MCP_META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo' as const;
/** Values of `network.transport` for MCP transports (OTel MCP semconv: stdio is `pipe`, HTTP is `tcp`). */
export const NETWORK_TRANSPORT_PIPE = 'pipe' as const;
export const NETWORK_TRANSPORT_TCP = 'tcp' as const;
export const ATTR_SERVER_ADDRESS = 'server.address' as const;
/** Resource attributes the proxy sets from the upstream's `initialize` answer (or `--service-name`). */
export const ATTR_SERVICE_NAME = 'service.name' as const;
export const ATTR_SERVICE_VERSION = 'service.version' as const;
/**
 * On spans of `@toolscope/proxy`: `true`. A proxy's SERVER span stands between the caller's CLIENT span (its
 * parent) and the upstream's own SERVER span (its child, when the upstream is instrumented too); the collector
 * counts the call once from the innermost server row (docs/intake.md).
 */
export const ATTR_TOOLSCOPE_PROXY = 'toolscope.proxy' as const;
/** `error.type` of a call that was in flight when the upstream exited or the proxy stopped. */
export const ERROR_TYPE_UPSTREAM_EXITED = 'upstream_exited' as const;
/** `_meta` keys of a `tools/list` entry: a tool's contract version and schema hash (`registerMcpTool` sets both). */
export const MCP_META_VERSION = 'toolscope.dev/version' as const;
export const MCP_META_SCHEMA_HASH = 'toolscope.dev/schema-hash' as const;
export const ATTR_SERVER_PORT = 'server.port' as const;
