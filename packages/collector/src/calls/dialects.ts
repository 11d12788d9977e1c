// The tool-span dialects the collector understands, as data: how each one is recognised (by its documented
// attributes, never by span name alone) and where it keeps the fields of a tool call. The first entry that
// matches a span wins, so the most specific come first. Adding a dialect is one entry here plus its test
// (test/e2e/dialects.test.ts produces its spans with the real npm package). Model calls have their own table
// (model-dialects.ts).
import * as sc from '@toolscope/instrument/semconv';

/** Where a call's row came from: `source` in the API. */
export const CALL_SOURCES = [
  'toolscope',
  'mcp',
  'gen_ai',
  'ai-sdk',
  'openllmetry',
  'openinference',
] as const;
export type CallSource = (typeof CALL_SOURCES)[number];

/** Attribute values as a span carries them: decoded OTLP at intake, parsed JSON when read back. */
export type Attributes = Readonly<Record<string, unknown>>;

/** A span as the dialects see it: attributes, name and instrumentation scope. */
export type DialectSpan = { attributes: Attributes; name: string; scopeName: string };

export type Dialect = {
  source: CallSource;
  /** True when the span is a tool call in this dialect. */
  matches: (span: DialectSpan) => boolean;
  /** Attributes holding the tool's name, first present wins; `spanName` falls back to the span's name. */
  tool: readonly string[];
  spanName?: boolean;
  callId: readonly string[];
  conversationId: readonly string[];
  /** The arguments as the dialect records them (a JSON string or an object), and how to pick them out of it. */
  args: readonly string[];
  argsOf?: (parsed: unknown) => unknown;
  result: readonly string[];
};

const has = (a: Attributes, key: string) => a[key] !== undefined;
const equals = (a: Attributes, key: string, value: string) => {
  const v = a[key];
  return typeof v === 'string' && v.toLowerCase() === value;
};
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const GEN_AI_FIELDS = {
  tool: [sc.ATTR_GEN_AI_TOOL_NAME],
  callId: [sc.ATTR_GEN_AI_TOOL_CALL_ID],
  conversationId: [sc.ATTR_GEN_AI_CONVERSATION_ID],
  args: [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS],
  result: [sc.ATTR_GEN_AI_TOOL_CALL_RESULT],
} as const;

export const DIALECTS: readonly Dialect[] = [
  {
    // docs/span-contract.md: the instrument package's spans (its scope, or toolscope.attempt / schema.hash, which the
    // contract sets on every call).
    source: 'toolscope',
    matches: (s) =>
      has(s.attributes, sc.ATTR_GEN_AI_TOOL_NAME) &&
      (s.scopeName === sc.INSTRUMENTATION_SCOPE ||
        has(s.attributes, sc.ATTR_TOOLSCOPE_ATTEMPT) ||
        has(s.attributes, sc.ATTR_TOOLSCOPE_SCHEMA_HASH)),
    ...GEN_AI_FIELDS,
  },
  {
    // OTel MCP semantic conventions: `tools/call` spans with the tool in gen_ai.tool.name.
    source: 'mcp',
    matches: (s) =>
      equals(s.attributes, sc.ATTR_MCP_METHOD_NAME, sc.MCP_METHOD_TOOLS_CALL) &&
      has(s.attributes, sc.ATTR_GEN_AI_TOOL_NAME),
    ...GEN_AI_FIELDS,
  },
  {
    // OTel GenAI semantic conventions (`execute_tool` spans), and AI SDK 7's OpenTelemetry integration.
    source: 'gen_ai',
    matches: (s) => has(s.attributes, sc.ATTR_GEN_AI_TOOL_NAME),
    ...GEN_AI_FIELDS,
  },
  {
    // Vercel AI SDK 5 and 6 (and 7's LegacyOpenTelemetry): `ai.toolCall` spans. Conversation ids come from
    // the caller's telemetry metadata, under the names people use for them.
    source: 'ai-sdk',
    matches: (s) => has(s.attributes, 'ai.toolCall.name'),
    tool: ['ai.toolCall.name'],
    callId: ['ai.toolCall.id'],
    conversationId: [
      'ai.telemetry.metadata.conversationId',
      'ai.telemetry.metadata.sessionId',
      'ai.telemetry.metadata.threadId',
    ],
    args: ['ai.toolCall.args'],
    result: ['ai.toolCall.result'],
  },
  {
    // OpenLLMetry / Traceloop: `traceloop.span.kind = tool` (withTool, and @traceloop/instrumentation-mcp's
    // `<tool>.tool` spans, whose input is `{ tool_name, arguments }`; withTool records `{ args, kwargs }`).
    source: 'openllmetry',
    matches: (s) =>
      equals(s.attributes, 'traceloop.span.kind', 'tool') &&
      has(s.attributes, 'traceloop.entity.name'),
    tool: ['traceloop.entity.name'],
    callId: [],
    conversationId: [
      'traceloop.association.properties.conversation_id',
      'traceloop.association.properties.session_id',
    ],
    args: ['traceloop.entity.input'],
    argsOf: (v) => {
      if (!isRecord(v)) return v;
      if (isRecord(v.arguments)) return v.arguments;
      if (Array.isArray(v.args) && v.args.length === 1 && isRecord(v.args[0])) return v.args[0];
      return v;
    },
    result: ['traceloop.entity.output'],
  },
  {
    // OpenInference (Arize Phoenix): `openinference.span.kind = TOOL`; traceTool names the span after the tool.
    source: 'openinference',
    matches: (s) => equals(s.attributes, 'openinference.span.kind', 'tool'),
    tool: ['tool.name'],
    spanName: true,
    callId: ['tool_call.id', 'tool.id'],
    conversationId: ['session.id'],
    args: ['input.value'],
    result: ['output.value'],
  },
];
