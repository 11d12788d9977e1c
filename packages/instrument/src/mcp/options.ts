// Public options of the MCP adapters, validated at the boundary.
import type { TracerProvider } from '@opentelemetry/api';
import { z } from 'zod';
import { ToolscopeError } from '../errors.js';
import { captureOptionsSchema } from '../redact.js';

const tracerProviderSchema = z.custom<TracerProvider>(
  (v) => typeof v === 'object' && v !== null && typeof Reflect.get(v, 'getTracer') === 'function',
  'must be a TracerProvider',
);

/** Information about one `tools/call` that option callbacks receive. */
export type McpCallInfo = {
  toolName: string;
  meta: Record<string, unknown> | undefined;
  sessionId: string | undefined;
};

/** Options both adapters take. */
const sharedOptions = {
  /** Spans go here instead of the global tracer provider. */
  tracerProvider: tracerProviderSchema.optional(),
  /** Redacted argument/result capture; defaults to `TOOLSCOPE_CAPTURE_CONTENT`. */
  captureContent: z.union([z.boolean(), captureOptionsSchema.partial()]).optional(),
  /** Tools that get no span: names, or a predicate. */
  skipTools: z
    .union([
      z.array(z.string()),
      z.custom<(name: string) => boolean>((v) => typeof v === 'function'),
    ])
    .optional(),
};

export const mcpServerOptionsSchema = z.object({
  ...sharedOptions,
  /** Conversation id of a call; by default `_meta["toolscope.dev/conversation-id"]` as the client adapter sends it. */
  conversationId: z
    .custom<(info: McpCallInfo) => string | undefined>((v) => typeof v === 'function')
    .optional(),
  /** Contract version reported for plain (non-`defineTool`) tools; default `_meta["toolscope.dev/version"]` or `unversioned`. */
  toolVersions: z.record(z.string(), z.string().min(1)).optional(),
  /** Key of the input hashes of plain tools; defaults to `TOOLSCOPE_HASH_KEY`. */
  hashKey: z.string().min(1).optional(),
});
export type McpServerInstrumentationOptions = z.input<typeof mcpServerOptionsSchema>;
export type ResolvedMcpServerOptions = z.output<typeof mcpServerOptionsSchema>;

export const mcpClientOptionsSchema = z.object({
  ...sharedOptions,
  /** Sent to the server in `_meta` and set on client spans: a fixed id or a function read per call. */
  conversationId: z
    .union([z.string().min(1), z.custom<() => string | undefined>((v) => typeof v === 'function')])
    .optional(),
  /** Key of the result hashes (`toolscope.output.hash`); defaults to `TOOLSCOPE_HASH_KEY`. */
  hashKey: z.string().min(1).optional(),
});
export type McpClientInstrumentationOptions = z.input<typeof mcpClientOptionsSchema>;
export type ResolvedMcpClientOptions = z.output<typeof mcpClientOptionsSchema>;

export function parseOptions<S extends z.ZodType>(
  schema: S,
  options: unknown,
  where: string,
): z.output<S> {
  const parsed = schema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .map((i) => `${i.path.join('.') || 'options'}: ${i.message}`)
    .join('; ');
  throw new ToolscopeError('INVALID_OPTIONS', `${where}: ${problems}`);
}

export function skipper(skip: ResolvedMcpServerOptions['skipTools']): (name: string) => boolean {
  if (!skip) return () => false;
  if (Array.isArray(skip)) {
    const names = new Set(skip);
    return (name) => names.has(name);
  }
  return (name) => {
    try {
      return skip(name) === true;
    } catch {
      return false;
    }
  };
}
