// The JSON API's public shapes (issue "Collector"): Zod schemas are the single source of the types the
// dashboard imports, and of query-parameter validation. Fields may be added, never renamed.
import { z } from 'zod';

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
});
export type ToolStats = z.infer<typeof toolStatsSchema>;
export const toolsResponseSchema = z.object({ tools: z.array(toolStatsSchema) });
export type ToolsResponse = z.infer<typeof toolsResponseSchema>;

export const callIssueSchema = z.object({
  path: z.string(),
  code: z.string(),
  message: z.string(),
});

export const callSchema = z.object({
  traceId: z.string(),
  spanId: z.string(),
  tool: z.string(),
  version: z.string().nullable(),
  schemaHash: z.string().nullable(),
  attempt: z.number().int(),
  code: z.string().nullable(),
  retryable: z.boolean().nullable(),
  partialEffect: z.boolean(),
  durationMs: z.number(),
  startTime: z.string(),
  issues: z.array(callIssueSchema),
  inputHash: z.string().nullable(),
  inputShape: z.string().nullable(),
  // Additions beyond the issue's list.
  errorType: z.string().nullable(),
  reason: z.string().nullable(),
  effect: z.string().nullable(),
  conversationId: z.string().nullable(),
  callId: z.string().nullable(),
  service: z.string().nullable(),
  kind: z.number().int(),
  parentSpanId: z.string().nullable(),
});
export type Call = z.infer<typeof callSchema>;
export const callsResponseSchema = z.object({
  calls: z.array(callSchema),
  nextCursor: z.string().nullable(),
});
export type CallsResponse = z.infer<typeof callsResponseSchema>;

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
