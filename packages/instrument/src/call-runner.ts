// The call pipeline (docs/defining-tools.md): validate input → idempotency → attempts with retry policy → validate
// output → envelope, all inside one span. Nothing thrown by the tool or by telemetry escapes.
import { type Attributes, diag, SpanKind, trace } from '@opentelemetry/api';
import { attempts } from './attempts.js';
import { parseCallOptions } from './call-options.js';
import { canonicalJson } from './canonical-json.js';
import type { ToolResult } from './contract.js';
import { reportContract } from './contract-report.js';
import { failure } from './envelope.js';
import { fingerprint } from './fingerprint.js';
import { runIdempotent } from './idempotent-call.js';
import type { Executed, Opts, SpanOverride, ToolInternals } from './internal-types.js';
import { toValidationIssues } from './issues.js';
import { type ParseOutcome, parseValue } from './parse.js';
import type { Redactor } from './redact.js';
import * as sc from './semconv.js';
import { recordResult } from './span-result.js';
import { type SafeSpan, type SpanSpec, startSafeSpan, withContext } from './telemetry.js';

export type { Executed, SpanOverride, ToolInternals } from './internal-types.js';

/** Runs one logical call of a tool and returns its envelope. */
export async function runCall(
  t: ToolInternals,
  rawInput: unknown,
  rawOptions: unknown,
  override?: SpanOverride,
): Promise<ToolResult<unknown>> {
  const parsedOptions = parseCallOptions(rawOptions);
  let opts: Opts = parsedOptions.ok ? parsedOptions.options : {};
  if (override?.executorSignal) {
    // Copied, then the key added: a spread with the key in its literal takes V8's slow path (0.5 µs, decision 0025).
    opts = Object.assign({}, opts);
    opts.executorSignal = override.executorSignal;
  }
  const firstAttempt = opts.attempt ?? 1;
  const print = fingerprint(rawInput, t.hasher);
  // Built by assignment, not spreads: this object is made on every call.
  const attributes: Attributes = Object.assign({}, t.baseAttributes);
  if (override?.attributes) Object.assign(attributes, override.attributes);
  attributes[sc.ATTR_TOOLSCOPE_ATTEMPT] = firstAttempt;
  attributes[sc.ATTR_TOOLSCOPE_PARTIAL_EFFECT] = false;
  attributes[sc.ATTR_TOOLSCOPE_INPUT_HASH] = print.hash;
  attributes[sc.ATTR_TOOLSCOPE_INPUT_SHAPE] = print.shape;
  if (opts.callId !== undefined) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID] = opts.callId;
  if (opts.conversationId !== undefined) {
    attributes[sc.ATTR_GEN_AI_CONVERSATION_ID] = opts.conversationId;
  }
  if (opts.idempotencyKey !== undefined) {
    attributes[sc.ATTR_TOOLSCOPE_IDEMPOTENCY_KEY_HASH] = t.hasher(opts.idempotencyKey);
  }
  const capture = opts.capture ?? t.captureDefault;
  if (capture) {
    attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = safeRedact(t.redactInput, rawInput);
  }
  const spec: SpanSpec = {
    name: override?.name ?? t.spanName,
    kind: override?.kind ?? SpanKind.INTERNAL,
    attributes,
  };
  if (override?.parent) spec.parent = override.parent;
  if (override?.links) spec.links = override.links;
  const provider = override?.tracerProvider ?? t.tracerProvider;
  const target: object = provider ?? trace.getTracerProvider();
  if (t.contractReportedTo !== target && reportContract(provider, t.contract)) {
    t.contractReportedTo = target;
  }
  const span = startSafeSpan(provider, spec);

  let executed: Executed;
  if (!parsedOptions.ok) {
    diag.warn(
      `@toolscope/instrument: ${t.name}.call got invalid options: ${parsedOptions.problems}`,
    );
    executed = internalFailure(t.name, firstAttempt);
  } else {
    try {
      executed = await withContext(span.context, execute, t, rawInput, opts, firstAttempt, span);
    } catch (error) {
      // Only a defect of this package lands here; the caller still gets an envelope.
      diag.error(`@toolscope/instrument: internal error in ${t.name}.call`, error);
      executed = internalFailure(t.name, firstAttempt);
    }
  }
  // Ended before the result goes back: a flush right after the call exports its span (decision 0047).
  endCall(t, span, executed, firstAttempt, capture, override);
  return executed.result;
}

/** Records the result on the span (span-result.ts, then the adapter's `onResult`) and ends it. */
function endCall(
  t: ToolInternals,
  span: SafeSpan,
  executed: Executed,
  firstAttempt: number,
  capture: boolean,
  override: SpanOverride | undefined,
): void {
  try {
    recordResult(
      span,
      executed,
      firstAttempt,
      capture ? (value) => safeRedact(t.redactResult, value) : undefined,
      t.hasher,
      !override?.measuresOutput,
    );
    if (override?.onResult) {
      try {
        override.onResult(executed.result, span);
      } catch (error) {
        diag.error('@toolscope/instrument: span hook failed', error);
      }
    }
  } finally {
    span.end(executed.result.ok ? undefined : executed.result.code);
  }
}

/** FAILED for bad call options or a defect of this package: the caller still gets an envelope. */
function internalFailure(tool: string, attempt: number): Executed {
  return {
    result: failure({ code: 'FAILED', tool, attempt, retryable: false, partialEffect: false }),
    replay: false,
    failedAttempts: 0,
  };
}

function safeRedact(redactor: Redactor, value: unknown): string {
  try {
    return redactor(value);
  } catch {
    return '"[unserializable]"';
  }
}

function execute(
  t: ToolInternals,
  rawInput: unknown,
  opts: Opts,
  firstAttempt: number,
  span: SafeSpan,
): Executed | Promise<Executed> {
  const parsed = parseValue(t.input, rawInput);
  return parsed instanceof Promise
    ? parsed.then((p) => afterInput(t, p, rawInput, opts, firstAttempt, span))
    : afterInput(t, parsed, rawInput, opts, firstAttempt, span);
}

function afterInput(
  t: ToolInternals,
  parsed: ParseOutcome,
  rawInput: unknown,
  opts: Opts,
  firstAttempt: number,
  span: SafeSpan,
): Executed | Promise<Executed> {
  if (parsed.kind !== 'ok') {
    const invalid = parsed.kind === 'invalid';
    return {
      result: failure({
        code: invalid ? 'INVALID_INPUT' : 'FAILED',
        tool: t.name,
        attempt: firstAttempt,
        retryable: false,
        partialEffect: false,
        ...(invalid
          ? { issues: toValidationIssues(parsed.issues) }
          : { reason: 'input_validation_crashed' }),
      }),
      replay: false,
      failedAttempts: 0,
    };
  }
  const key = opts.idempotencyKey;
  if (key === undefined) return attempts(t, parsed.data, opts, firstAttempt, span);

  // The canonical text is made again here, only for calls with a key: the span's input hash never builds it.
  return runIdempotent(t, parsed.data, key, canonicalJson(rawInput), opts, firstAttempt, span);
}
