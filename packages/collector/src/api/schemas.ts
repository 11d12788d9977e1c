// The JSON API's public shapes: Zod schemas are the single source of the types the
// dashboard imports, and of query-parameter validation. Fields may be added, never renamed.
import { z } from 'zod';
import { spanCallSchema } from './call-schemas.js';
import { deprecationSchema } from './contract-schemas.js';

export * from './call-schemas.js';

export const toolStatsSchema = z.object({
  name: z.string(),
  calls: z.number().int(),
  errors: z.number().int(),
  errorRate: z.number(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
  codes: z.record(z.string(), z.number().int()),
  versions: z.array(z.string()),
  /** The dialects its calls were read from: toolscope, mcp, gen_ai, ai-sdk, openllmetry, openinference. */
  sources: z.array(z.string()),
  /** Bytes and approximate tokens (o200k) of its newest contract's tools/list entry; null when none came. */
  schemaBytes: z.number().int().nullable(),
  schemaTokens: z.number().int().nullable(),
  /** Set when its newest contract is deprecated. */
  deprecated: deprecationSchema.nullable(),
  /** The most frequent exception types of its failures in the range (at most 5). */
  exceptions: z.array(z.object({ type: z.string(), count: z.number().int() })),
  /**
   * What its results cost the model's context over the calls that carried a size: UTF-8 bytes
   * (exact per call) and approximate tokens; null when no call did.
   */
  resultBytesP50: z.number().int().nullable(),
  resultBytesP95: z.number().int().nullable(),
  resultTokensP95: z.number().int().nullable(),
  // Additions beyond the list.
  resultBytesMax: z.number().int().nullable(),
  resultTokensP50: z.number().int().nullable(),
  resultTokensMax: z.number().int().nullable(),
  /** The same per version (null: unversioned calls), oldest first by their first call in the range. */
  resultSizes: z.array(
    z.object({
      version: z.string().nullable(),
      firstSeen: z.string(),
      measured: z.number().int(),
      bytesP50: z.number().int().nullable(),
      bytesP95: z.number().int().nullable(),
      bytesMax: z.number().int().nullable(),
      tokensP50: z.number().int().nullable(),
      tokensP95: z.number().int().nullable(),
      tokensMax: z.number().int().nullable(),
    }),
  ),
});
export type ToolStats = z.infer<typeof toolStatsSchema>;
/** The weight of each server's tools/list: what a client that connects to it pays before the first call. */
export const serverWeightSchema = z.object({
  service: z.string(),
  tools: z.number().int(),
  schemaBytes: z.number().int(),
  schemaTokens: z.number().int(),
});
/** The newest reported contract of every tool, called in the range or not: what tools/list costs. */
export const contractWeightSchema = z.object({
  name: z.string(),
  version: z.string(),
  schemaHash: z.string(),
  schemaBytes: z.number().int(),
  schemaTokens: z.number().int(),
  deprecated: deprecationSchema.nullable(),
});
export type ServerWeight = z.infer<typeof serverWeightSchema>;
export type ContractWeight = z.infer<typeof contractWeightSchema>;
export const toolsResponseSchema = z.object({
  tools: z.array(toolStatsSchema),
  servers: z.array(serverWeightSchema),
  contracts: z.array(contractWeightSchema),
});
export type ToolsResponse = z.infer<typeof toolsResponseSchema>;

/** A span that is one request to a language model (calls/model-dialects.ts says how each dialect marks it). */
export const modelCallSchema = z.object({
  system: z.string().nullable(),
  model: z.string().nullable(),
  inputTokens: z.number().int().nullable(),
  outputTokens: z.number().int().nullable(),
  finishReason: z.string().nullable(),
  // Additions beyond the list.
  /** The dialect it was read from: ai-sdk, openllmetry, openinference, gen_ai. */
  source: z.string(),
});
export type ModelCallOut = z.infer<typeof modelCallSchema>;

const attrs = z.record(z.string(), z.unknown());
export const spanSchema = z.object({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().nullable(),
  name: z.string(),
  kind: z.number().int(),
  startTime: z.string(),
  startTimeUnixNano: z.string(),
  endTimeUnixNano: z.string(),
  durationMs: z.number(),
  status: z.object({ code: z.number().int(), message: z.string() }),
  attributes: attrs,
  events: z.array(z.object({ timeUnixNano: z.string(), name: z.string(), attributes: attrs })),
  links: z.array(z.object({ traceId: z.string(), spanId: z.string(), attributes: attrs })),
  resource: attrs,
  scope: z.object({ name: z.string(), version: z.string() }),
  truncatedAttributes: z.array(z.string()),
  droppedAttributes: z.number().int(),
  /** The collector's reading of the span: its tool call, or its model call; null when it is neither. */
  call: spanCallSchema.nullable(),
  modelCall: modelCallSchema.nullable(),
  /** The service that sent it (its resource's service.name). */
  service: z.string().nullable(),
});
export type SpanOut = z.infer<typeof spanSchema>;
export const traceResponseSchema = z.object({ traceId: z.string(), spans: z.array(spanSchema) });
export type TraceResponse = z.infer<typeof traceResponseSchema>;
export const conversationResponseSchema = z.object({
  conversationId: z.string(),
  traceIds: z.array(z.string()),
  spans: z.array(spanSchema),
});
export type ConversationResponse = z.infer<typeof conversationResponseSchema>;

export const errorResponseSchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;

// GET /api/tools/:name: what the dashboard's tool page shows.
export const toolVersionSchema = z.object({
  version: z.string(),
  schemaHash: z.string(),
  firstSeen: z.string(),
  lastSeen: z.string(),
  calls: z.number().int(),
  lastTraceId: z.string(),
  /** Another schema hash was seen under the same version: a contract changed without a version bump. */
  silentChange: z.boolean(),
});
export const failingPathSchema = z.object({
  code: z.string(),
  path: z.string(),
  count: z.number().int(),
  lastTraceId: z.string(),
});
export const inputShapeSchema = z.object({
  shape: z.string(),
  firstSeen: z.string(),
  lastSeen: z.string(),
  calls: z.number().int(),
  invalid: z.number().int(),
});
export const latencyBucketSchema = z.object({
  fromMs: z.number(),
  toMs: z.number(),
  count: z.number().int(),
});
/** One MCP client's calls of a tool over the range: the tool page's breakdown by client. */
export const toolClientSchema = z.object({
  /** Its name (clientInfo.name); null for the calls that named no client (the dashboard says "unknown"). */
  name: z.string().nullable(),
  /** Its version (clientInfo.version); null when the calls named none. */
  version: z.string().nullable(),
  calls: z.number().int(),
  errors: z.number().int(),
  errorRate: z.number(),
  /** Its most frequent failing code; null when none of its calls failed. */
  topCode: z.string().nullable(),
});
export type ToolClient = z.infer<typeof toolClientSchema>;
export const toolDetailResponseSchema = z.object({
  name: z.string(),
  stats: toolStatsSchema,
  /** Its calls per MCP client name and version, most calls first (at most 100), each call counted once. */
  clients: z.array(toolClientSchema),
  versions: z.array(toolVersionSchema),
  failingPaths: z.array(failingPathSchema),
  shapes: z.array(inputShapeSchema),
  latency: z.array(latencyBucketSchema),
  /** Result bytes of its calls, in 5 %-wide buckets. */
  resultBytes: z.array(
    z.object({ fromBytes: z.number().int(), toBytes: z.number().int(), count: z.number().int() }),
  ),
});
export type ToolDetailResponse = z.infer<typeof toolDetailResponseSchema>;

// GET /api/tools/:name/contracts and /api/tools/:name/contracts/diff
export * from './contract-schemas.js';

// GET /api/timeseries
export const timeseriesResponseSchema = z.object({
  stepMs: z.number().int(),
  points: z.array(
    z.object({
      t: z.string(),
      calls: z.number().int(),
      errors: z.number().int(),
      /** The errors of the step per code (codes with none are absent). */
      errorsByCode: z.record(z.string(), z.number().int()),
    }),
  ),
  /** With `byTool=true`: each tool's calls and errors, aligned with `points`. */
  tools: z
    .array(
      z.object({
        name: z.string(),
        calls: z.array(z.number().int()),
        errors: z.array(z.number().int()),
      }),
    )
    .optional(),
});
export type TimeseriesResponse = z.infer<typeof timeseriesResponseSchema>;

// GET /api/search?q=
export const searchResultSchema = z.object({
  kind: z.enum(['trace', 'conversation', 'call', 'tool', 'code']),
  value: z.string(),
  label: z.string(),
  traceId: z.string().optional(),
});
export const searchResponseSchema = z.object({ results: z.array(searchResultSchema) });
export type SearchResponse = z.infer<typeof searchResponseSchema>;
export type SearchResult = z.infer<typeof searchResultSchema>;
