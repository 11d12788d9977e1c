// The span of a `tools/call` to a plain MCP tool (a handler registered with the SDK, not `defineTool`): MCP
// semconv plus the Toolscope attributes that can be known from outside the handler. What only the result tells
// (its size, its hash, the outcome) is worked out after the response has gone back, then the span ends.
import { type Attributes, SpanKind } from '@opentelemetry/api';
import { afterResponse } from '../after-response.js';
import { hashCanonical, type InputPrint, inputPrint } from '../fingerprint.js';
import * as sc from '../semconv.js';
import { startSafeSpanOf, withContext } from '../telemetry.js';
import { callStartAttributes, setCallAttributes } from './call-attributes.js';
import { finishPlainCall, type PlainCall } from './plain-finish.js';
import { serverParent } from './propagation.js';
import { decodeExtra } from './request-context.js';
import { isRecord, type RawHandler } from './sdk-access.js';
import { mcpServerCallAttributes, type ServerState } from './server-state.js';
import { outputFor, thrownFor } from './thrown.js';
import { plainToolVersion, toolProfile } from './tool-profile.js';

const INVALID_PARAMS = '-32602';

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
      const profile = toolProfile(state, name);
      const protocolFailure =
        profile === undefined
          ? `Tool ${name} not found`
          : profile?.registered.enabled === false
            ? `Tool ${name} disabled`
            : undefined;
      const args = params?.arguments;
      let attributes: Attributes;
      // The input's canonical bytes are copied now and hashed once the response has gone back.
      let input: InputPrint | undefined;
      if (profile && !protocolFailure) {
        input = inputPrint(args ?? {});
        attributes = callStartAttributes(state, name, profile, e);
      } else {
        attributes = mcpServerCallAttributes(state, name, e);
        if (!protocolFailure) {
          // No readable registry (a low-level Server): what the span contract asks for, unknown as such.
          attributes[sc.ATTR_TOOLSCOPE_SCHEMA_VERSION] = plainToolVersion(state, name, undefined);
          attributes[sc.ATTR_TOOLSCOPE_EFFECT] = 'write';
          attributes[sc.ATTR_TOOLSCOPE_ATTEMPT] = 1;
          attributes[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT] = false;
          input = inputPrint(args ?? {});
          attributes[sc.ATTR_TOOLSCOPE_INPUT_SHAPE] = input.shape;
          if (state.capture)
            attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = state.redactor(args ?? {});
        }
      }

      const span = startSafeSpanOf(
        state.options.tracerProvider,
        profile ? profile.spanName : `${sc.SPAN_NAME_MCP_TOOLS_CALL_PREFIX} ${name}`,
        SpanKind.SERVER,
        attributes,
        parent,
        links,
      );
      if (input && profile && !protocolFailure)
        setCallAttributes(span, state, profile, input.shape, args);
      let result: unknown;
      try {
        result = await withContext(span.context, original, request, extra);
      } catch (error) {
        const code =
          isRecord(error) && typeof error.code === 'number' ? String(error.code) : '_OTHER';
        const end: Attributes = {
          [sc.ATTR_ERROR_TYPE]: code,
          [sc.ATTR_RPC_RESPONSE_STATUS_CODE]: code,
        };
        if (input) end[sc.ATTR_TOOLSCOPE_INPUT_HASH] = hashCanonical(input.canonical, state.hasher);
        span.setAttributes(end);
        span.end(error instanceof Error ? error.message : code);
        throw error;
      }
      if (protocolFailure) {
        // The SDK answers an unknown tool with an isError result; per the MCP spec it is invalid params.
        span.setAttributes({
          [sc.ATTR_ERROR_TYPE]: INVALID_PARAMS,
          [sc.ATTR_RPC_RESPONSE_STATUS_CODE]: INVALID_PARAMS,
        });
        span.end(protocolFailure);
        return result;
      }
      // A successful call keeps neither its arguments nor its request until the span ends: in a burst of calls
      // answered before the spans end, that is less to carry through young-generation collections.
      const failed = isRecord(result) && result.isError === true;
      const call: PlainCall = {
        state,
        span,
        result,
        input: input?.canonical,
        args: failed ? args : undefined,
        schemas: profile ? profile.schemas : undefined,
        threw: failed ? thrownFor(extra) : undefined,
        output: failed ? outputFor(extra) : undefined,
        endTime: performance.now(),
      };
      afterResponse(finishPlainCall, call);
      return result;
    };
}
