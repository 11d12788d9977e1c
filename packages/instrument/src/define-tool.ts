// `defineTool`: one Zod contract per tool, checked once at definition time, turned into a `.call` that
// validates, executes with policy, validates again and reports one span (docs/defining-tools.md).
import type { Attributes } from '@opentelemetry/api';
import { z } from 'zod';
import { runCall, type ToolInternals } from './call-runner.js';
import { readEnvConfig } from './config.js';
import { deprecationAttributes, deprecationSchema } from './deprecation.js';
import { ToolscopeError } from './errors.js';
import { createHasher } from './hashing.js';
import { DEFAULT_IDEMPOTENCY_TTL_MS, MemoryIdempotencyStore } from './idempotency.js';
import { type InternalAccess, TOOL_INTERNALS } from './internal.js';
import { type CaptureOptions, captureOptionsSchema, createRedactor } from './redact.js';
import { retryPolicySchema } from './retry.js';
import { inputJsonSchemaOf, outputJsonSchemaOf, schemaHashOf } from './schema-hash.js';
import * as sc from './semconv.js';
import { sensitiveTreeOf } from './sensitive.js';
import type { Tool, ToolDefinition } from './types.js';

const definitionSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'use 1–128 letters, digits, "_", "-" or "."'),
  version: z.string().min(1).max(64),
  effect: z.enum(['read', 'write']),
  description: z.string().max(10_000),
  input: z.custom<z.ZodType>((v) => v instanceof z.ZodType, 'must be a Zod schema'),
  output: z.custom<z.ZodType>((v) => v instanceof z.ZodType, 'must be a Zod schema'),
  execute: z.custom<(...args: never[]) => unknown>(
    (v) => typeof v === 'function',
    'must be a function',
  ),
  classify: z
    .custom<(error: unknown) => unknown>((v) => typeof v === 'function', 'must be a function')
    .optional(),
  timeoutMs: z.number().int().min(1).max(86_400_000).optional(),
  retry: retryPolicySchema.optional(),
  idempotencyStore: z
    .custom<{ get: unknown; set: unknown }>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof Reflect.get(v, 'get') === 'function' &&
        typeof Reflect.get(v, 'set') === 'function',
      'must have get(key) and set(key, record, ttlMs)',
    )
    .optional(),
  idempotencyTtlMs: z.number().int().min(1).optional(),
  tracerProvider: z
    .custom(
      (v) =>
        typeof v === 'object' && v !== null && typeof Reflect.get(v, 'getTracer') === 'function',
      'must be a TracerProvider',
    )
    .optional(),
  capture: z.union([z.boolean(), captureOptionsSchema.partial()]).optional(),
  hashKey: z.string().min(1).optional(),
  deprecated: deprecationSchema.optional(),
});

/** Defines a tool; throws `ToolscopeError(INVALID_DEFINITION)` at startup for a definition that cannot work. */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(
  definition: ToolDefinition<I, O>,
): Tool<I, O> {
  const checked = definitionSchema.safeParse(definition);
  if (!checked.success) {
    const problems = checked.error.issues
      .map((i) => `${i.path.join('.') || 'definition'}: ${i.message}`)
      .join('; ');
    throw new ToolscopeError(
      'INVALID_DEFINITION',
      `defineTool(${String(definition?.name)}): ${problems}`,
    );
  }
  const d = checked.data;
  let inputJsonSchema: Record<string, unknown>;
  let outputJsonSchema: Record<string, unknown>;
  try {
    inputJsonSchema = inputJsonSchemaOf(definition.input);
    outputJsonSchema = outputJsonSchemaOf(definition.output);
  } catch (cause) {
    throw new ToolscopeError(
      'INVALID_DEFINITION',
      `defineTool(${d.name}): schema has no JSON Schema form`,
      { cause },
    );
  }
  const schemaHash = schemaHashOf(inputJsonSchema, outputJsonSchema);
  const env = readEnvConfig();
  const captureSetting: boolean | CaptureOptions = definition.capture ?? env.captureContent;
  const captureOptions: CaptureOptions = typeof captureSetting === 'object' ? captureSetting : {};
  const baseAttributes: Attributes = {
    [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
    [sc.ATTR_GEN_AI_TOOL_NAME]: d.name,
    [sc.ATTR_TOOLSCOPE_SCHEMA_VERSION]: d.version,
    [sc.ATTR_TOOLSCOPE_SCHEMA_HASH]: schemaHash,
    [sc.ATTR_TOOLSCOPE_EFFECT]: d.effect,
    ...(d.deprecated ? deprecationAttributes(d.deprecated) : {}),
  };
  const internals: ToolInternals = {
    name: d.name,
    effect: d.effect,
    input: definition.input,
    output: definition.output,
    execute: definition.execute as ToolInternals['execute'],
    classify: definition.classify,
    timeoutMs: d.timeoutMs,
    policy: d.retry ?? retryPolicySchema.parse({}),
    store: definition.idempotencyStore ?? new MemoryIdempotencyStore(),
    idempotencyTtlMs: d.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS,
    inFlight: new Map(),
    tracerProvider: definition.tracerProvider,
    captureDefault: captureSetting !== false,
    redactInput: createRedactor(captureOptions, sensitiveTreeOf(inputJsonSchema)),
    redactResult: createRedactor(captureOptions, sensitiveTreeOf(outputJsonSchema)),
    hasher: createHasher(definition.hashKey ?? env.hashKey),
    baseAttributes,
    spanName: `${sc.SPAN_NAME_EXECUTE_TOOL_PREFIX} ${d.name}`,
    contract: {
      entry: {
        name: d.name,
        description: d.description,
        inputSchema: inputJsonSchema,
        outputSchema: outputJsonSchema,
      },
      version: d.version,
      hash: schemaHash,
      deprecated: d.deprecated,
      origin: 'defineTool',
    },
    contractReportedTo: undefined,
  };
  const access: InternalAccess = {
    internals,
    run: (rawInput, options, override) => runCall(internals, rawInput, options, override),
  };
  const tool: Tool<I, O> = {
    name: d.name,
    version: d.version,
    effect: d.effect,
    description: d.description,
    input: definition.input,
    output: definition.output,
    inputJsonSchema,
    outputJsonSchema,
    schemaHash,
    deprecated: d.deprecated,
    call: (rawInput, options) =>
      runCall(internals, rawInput, options) as ReturnType<Tool<I, O>['call']>,
  };
  Object.defineProperty(tool, TOOL_INTERNALS, { value: access, enumerable: false });
  return Object.freeze(tool);
}
