// The span of a `tools/call` to a plain MCP tool (a handler registered with the SDK, not `defineTool`): MCP
// semconv plus the Toolscope attributes that can be known from outside the handler, and at the end what the
// result tells (its size, its hash, the outcome), set and ended before the response goes back. A call whose answer
// leaves it open (`input_required`, a task) keeps its span across its later legs and polls (server-legs.ts).
import { type Attributes, SpanKind } from '@opentelemetry/api';
import { type InputPrint, inputPrint } from '../fingerprint.js';
import { newLogicalCall } from '../logical-call.js';
import * as sc from '../semconv.js';
import { rpcFailure, setDeclaration, setInput, UNKNOWN_TOOL } from '../span-contract.js';
import { startSafeSpanOf, withContext } from '../telemetry.js';
import { unfinishedOf } from './answer.js';
import { callStartAttributes, setCallAttributes } from './call-attributes.js';
import { takeInputRounds } from './input-rounds.js';
import { endPlainCall, endPlainFailure, type PlainEnd } from './plain-finish.js';
import { serverParent } from './propagation.js';
import { type DecodedExtra, decodeExtra } from './request-context.js';
import { isRecord, type RawHandler } from './sdk-access.js';
import { parentSpanIdOf, parkOpenCall, resumeLeg } from './server-legs.js';
import { mcpServerCallAttributes, type ServerState } from './server-state.js';
import { plainToolVersion, toolProfile } from './tool-profile.js';

const INVALID_PARAMS = -32602;

/** Wraps the `tools/call` handler so plain tools get one SERVER span per call. */
export function plainToolsCall(state: ServerState, isDefined: (name: string) => boolean) {
  return (original: RawHandler): RawHandler =>
    function toolsCall(request: unknown, extra: unknown): unknown {
      // Not an async function: it returns the leg's own promise, where an async wrapper would make a promise of
      // its own and resolve it with the leg's (two more microtasks and a promise per call, decision 0055).
      try {
        return tracedCall(state, isDefined, original, request, extra);
      } catch (error) {
        return Promise.reject(error);
      }
    };
}

/** One `tools/call`: the original handler's promise, or the traced leg's. */
function tracedCall(
  state: ServerState,
  isDefined: (name: string) => boolean,
  original: RawHandler,
  request: unknown,
  extra: unknown,
): unknown {
  const params = isRecord(request) && isRecord(request.params) ? request.params : undefined;
  const name = typeof params?.name === 'string' ? params.name : undefined;
  if (name === undefined || state.skip(name) || isDefined(name)) return original(request, extra);

  const e = decodeExtra(extra);
  const args = params?.arguments;
  // A later leg of a multi round-trip call: its span is the one its first leg opened, when this process has it.
  const echoed = e.echoedState;
  let resumes: string | undefined;
  if (echoed !== undefined) {
    const leg = resumeLeg(state, name, args, parentSpanIdOf(e.meta), echoed);
    if (leg.call) return runLeg(leg.call, original, request, extra, e, name, args);
    resumes = leg.stateHash;
  }

  const { parent, links } = serverParent(e.meta, e.headers);
  const profile = toolProfile(state, name);
  const protocolFailure =
    profile === undefined
      ? `Tool ${name} not found`
      : profile?.registered.enabled === false
        ? `Tool ${name} disabled`
        : undefined;
  let attributes: Attributes;
  // The input's canonical bytes are copied now and hashed when the call ends.
  let input: InputPrint | undefined;
  if (profile && !protocolFailure) {
    input = inputPrint(args ?? {});
    attributes = callStartAttributes(state, name, profile, e);
  } else {
    attributes = mcpServerCallAttributes(state, name, e);
    if (!protocolFailure) {
      // No readable registry (a low-level Server): what the span contract asks for, unknown as such.
      const version = plainToolVersion(state, name, undefined);
      setDeclaration(attributes, { ...UNKNOWN_TOOL, version });
      input = inputPrint(args ?? {});
      const captured = state.capture ? state.redactor(args ?? {}) : undefined;
      setInput(attributes, input.shape, undefined, captured);
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
  const call: PlainEnd = {
    state,
    span,
    input: input?.canonical,
    inputHashed: false,
    schemas: profile ? profile.schemas : undefined,
    logical: undefined,
  };
  if (resumes !== undefined) {
    call.logical = newLogicalCall();
    call.logical.resumes = resumes;
  }
  return runLeg(call, original, request, extra, e, name, args, protocolFailure);
}

/** Runs one leg of a call under its span; ends the span with the final answer, or parks it while it is open. */
async function runLeg(
  call: PlainEnd,
  original: RawHandler,
  request: unknown,
  extra: unknown,
  e: DecodedExtra,
  name: string,
  args: unknown,
  protocolFailure?: string,
): Promise<unknown> {
  let result: unknown;
  try {
    result = await withContext(call.span.context, original, request, extra);
  } catch (error) {
    const code = isRecord(error) && typeof error.code === 'number' ? error.code : '_OTHER';
    addInputRounds(call, e);
    endPlainFailure(call, rpcFailure(code), error instanceof Error ? error.message : String(code));
    throw error;
  }
  if (protocolFailure) {
    // The SDK answers an unknown tool with an isError result; per the MCP spec it is invalid params.
    endPlainFailure(call, rpcFailure(INVALID_PARAMS), protocolFailure);
    return result;
  }
  addInputRounds(call, e);
  const open = unfinishedOf(result);
  if (open) parkOpenCall(call, name, open, parentSpanIdOf(e.meta));
  else endPlainCall(call, result, args, extra);
  return result;
}

/** Rounds of input the request ran inside itself (a 2025 connection), added to the call's record. */
function addInputRounds(call: PlainEnd, e: DecodedExtra): void {
  const rounds = takeInputRounds(call.state.low, e.requestId);
  if (!rounds) return;
  if (!call.logical) {
    call.logical = rounds;
    return;
  }
  call.logical.legs += rounds.legs - 1;
  call.logical.inputWaitMs += rounds.inputWaitMs;
}
