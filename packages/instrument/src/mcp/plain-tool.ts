// The span of a `tools/call` to a plain MCP tool (a handler registered with the SDK, not `defineTool`):
// MCP semconv plus the Toolscope attributes that can be known from outside the handler.
import { type Attributes, SpanKind } from '@opentelemetry/api';
import { deprecationAttributes, deprecationOfMcpTool } from '../deprecation.js';
import { exceptionAttributes } from '../exception.js';
import { fingerprint } from '../fingerprint.js';
import { mcpOutputHash } from '../output-hash.js';
import { mcpOutputAttributes } from '../output-size.js';
import { inputJsonSchemaOf, outputJsonSchemaOf, schemaHashOf } from '../schema-hash.js';
import * as sc from '../semconv.js';
import { startSafeSpan, withContext } from '../telemetry.js';
import { outcomeOfPlainResult } from './call-result.js';
import { serverParent } from './propagation.js';
import {
  decodeExtra,
  isRecord,
  type RawHandler,
  type RegisteredTool,
  registeredTool,
} from './sdk-access.js';
import { mcpServerCallAttributes, type ServerState } from './server-state.js';
import { keepThrown, thrownFor } from './thrown.js';

const INVALID_PARAMS = '-32602';
const UNVERSIONED = 'unversioned';
const hashes = new WeakMap<object, { output: unknown; hash: string }>();

/** Schema hash of a registered tool's Zod schemas, cached per schema object. */
export function schemaHashOfRegistered(input: unknown, output: unknown): string | undefined {
  const key = typeof input === 'object' && input !== null ? input : hashes;
  const cached = hashes.get(key);
  if (cached && cached.output === output) return cached.hash;
  try {
    const inputJson =
      typeof input === 'object' && input !== null ? inputJsonSchemaOf(input as never) : {};
    const outputJson =
      typeof output === 'object' && output !== null ? outputJsonSchemaOf(output as never) : {};
    const hash = schemaHashOf(inputJson, outputJson);
    hashes.set(key, { output, hash });
    return hash;
  } catch {
    return undefined;
  }
}

/** Wraps the `tools/call` handler so plain tools get one SERVER span per call. */
export function plainToolsCall(state: ServerState, isDefined: (name: string) => boolean) {
  return (original: RawHandler): RawHandler =>
    async function toolsCall(request: unknown, extra: unknown): Promise<unknown> {
      const params = isRecord(request) && isRecord(request.params) ? request.params : undefined;
      const name = typeof params?.name === 'string' ? params.name : undefined;
      if (name === undefined || state.skip(name) || isDefined(name))
        return original(request, extra);

      const e = decodeExtra(extra);
      const { parent, links } = serverParent(e.meta, e.headers);
      const attributes = mcpServerCallAttributes(state, name, e);
      const registered = registeredTool(state.high, name);
      const protocolFailure =
        registered === undefined
          ? `Tool ${name} not found`
          : registered?.enabled === false
            ? `Tool ${name} disabled`
            : undefined;
      const args = params?.arguments;
      if (!protocolFailure) {
        addToolAttributes(attributes, state, name, registered ?? undefined, args);
        keepThrown(state.high, name);
      }

      const span = startSafeSpan(state.options.tracerProvider, {
        name: `${sc.SPAN_NAME_MCP_TOOLS_CALL_PREFIX} ${name}`,
        kind: SpanKind.SERVER,
        attributes,
        parent,
        ...(links ? { links } : {}),
      });
      try {
        const result = await withContext(span.context, original, request, extra);
        if (protocolFailure) {
          // The SDK answers an unknown tool with an isError result; per the MCP spec it is invalid params.
          span.setAttributes({
            [sc.ATTR_ERROR_TYPE]: INVALID_PARAMS,
            [sc.ATTR_RPC_RESPONSE_STATUS_CODE]: INVALID_PARAMS,
          });
          span.end(protocolFailure);
          return result;
        }
        const outcome = outcomeOfPlainResult(
          result,
          args,
          registered
            ? { input: registered.inputSchema, output: registered.outputSchema }
            : undefined,
        );
        // What the model receives: content plus structuredContent, measured without a copy (output-size.ts).
        const end: Attributes = {};
        if (span.recording) {
          mcpOutputAttributes(result, end);
          end[sc.ATTR_TOOLSCOPE_OUTPUT_HASH] = mcpOutputHash(result, state.hasher);
        }
        if (!outcome.ok) {
          end[sc.ATTR_ERROR_TYPE] = sc.ERROR_TYPE_TOOL_ERROR;
          end[sc.ATTR_TOOLSCOPE_ERROR_CODE] = outcome.code;
          end[sc.ATTR_TOOLSCOPE_RETRYABLE] = outcome.retryable;
          end[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT] = outcome.partialEffect;
          if (outcome.reason) end[sc.ATTR_TOOLSCOPE_ERROR_REASON] = outcome.reason;
          if (outcome.issues)
            end[sc.ATTR_TOOLSCOPE_VALIDATION_ISSUES] = JSON.stringify(outcome.issues);
        }
        if (state.capture && isRecord(result)) {
          end[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] = state.redactor(
            result.structuredContent ?? result.content,
          );
        }
        span.setAttributes(end);
        const threw = outcome.ok ? undefined : thrownFor(extra);
        if (threw)
          span.addEvent(sc.EVENT_EXCEPTION, exceptionAttributes(threw.error, state.capture));
        span.end(outcome.ok ? undefined : outcome.code);
        return result;
      } catch (error) {
        const code =
          isRecord(error) && typeof error.code === 'number' ? String(error.code) : '_OTHER';
        span.setAttributes({
          [sc.ATTR_ERROR_TYPE]: code,
          [sc.ATTR_RPC_RESPONSE_STATUS_CODE]: code,
        });
        span.end(error instanceof Error ? error.message : code);
        throw error;
      }
    };
}

const deprecations = new WeakMap<
  object,
  { description: unknown; annotations: unknown; meta: unknown; attributes: Attributes | undefined }
>();

/** A plain tool's deprecation attributes, read once per registry record (again if `update()` changed it). */
function deprecationOf(r: RegisteredTool): Attributes | undefined {
  const known = deprecations.get(r.raw);
  if (
    known &&
    known.description === r.description &&
    known.annotations === r.annotations &&
    known.meta === r.meta
  )
    return known.attributes;
  const d = deprecationOfMcpTool(r.annotations, r.meta, r.description);
  const attributes = d ? deprecationAttributes(d) : undefined;
  deprecations.set(r.raw, {
    description: r.description,
    annotations: r.annotations,
    meta: r.meta,
    attributes,
  });
  return attributes;
}

/** A plain tool's version: the `toolVersions` option, else `_meta["toolscope.dev/version"]`, else unversioned. */
export function plainToolVersion(state: ServerState, name: string, meta: unknown): string {
  const metaVersion = isRecord(meta) ? meta['toolscope.dev/version'] : undefined;
  return (
    state.options.toolVersions?.[name] ??
    (typeof metaVersion === 'string' ? metaVersion : UNVERSIONED)
  );
}

function addToolAttributes(
  attributes: Attributes,
  state: ServerState,
  name: string,
  registered: RegisteredTool | undefined,
  args: unknown,
): void {
  attributes[sc.ATTR_TOOLSCOPE_SCHEMA_VERSION] = plainToolVersion(state, name, registered?.meta);
  const hash = registered
    ? schemaHashOfRegistered(registered.inputSchema, registered.outputSchema)
    : undefined;
  if (hash) attributes[sc.ATTR_TOOLSCOPE_SCHEMA_HASH] = hash;
  const readOnly =
    isRecord(registered?.annotations) && registered.annotations.readOnlyHint === true;
  attributes[sc.ATTR_TOOLSCOPE_EFFECT] = readOnly ? 'read' : 'write';
  const deprecated = registered ? deprecationOf(registered) : undefined;
  if (deprecated) Object.assign(attributes, deprecated);
  attributes[sc.ATTR_TOOLSCOPE_ATTEMPT] = 1;
  attributes[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT] = false;
  const print = fingerprint(args ?? {}, state.hasher);
  attributes[sc.ATTR_TOOLSCOPE_INPUT_HASH] = print.hash;
  attributes[sc.ATTR_TOOLSCOPE_INPUT_SHAPE] = print.shape;
  if (state.capture) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = state.redactor(args ?? {});
}
