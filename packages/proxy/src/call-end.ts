// How a call's span ends (the span contract through proxy-kit): with its final result, a JSON-RPC error, the
// upstream gone, a task that failed, or, for a call the proxy stops waiting for, as a part of its call.
import { type Attributes, SpanStatusCode } from '@opentelemetry/api';
import {
  brokenContractFailure,
  type CallFailure,
  outcomeOfPlainResult,
  rpcFailure,
  sdkValidationOfResult,
  sdkValidationOfText,
  setFailure,
  setLogical,
  setMcpResult,
  toolErrorFailure,
} from '@toolscope/instrument/proxy-kit';
import * as sc from '@toolscope/instrument/semconv';
import type { CallContext, OpenCall } from './call-span.js';
import type { ToolInfo } from './tool-table.js';

/** Ends a call's span with `a`, its record and, for a failure, ERROR with `why`. */
function end(call: OpenCall, a: Attributes, failure: CallFailure | undefined, why: string): void {
  if (call.logical) setLogical(a, call.logical);
  if (failure) setFailure(a, failure);
  call.span.setAttributes(a);
  if (failure) call.span.setStatus({ code: SpanStatusCode.ERROR, message: why });
  call.span.end();
}

/** What the upstream's result says; the output check's issues when a successful result breaks its schema. */
export type Verdict = { brokenContract: ReturnType<NonNullable<ToolInfo['check']>> };

/** Checks a successful result against the advertised outputSchema (MCP: structuredContent must then be there). */
export function checkOutput(call: OpenCall, result: unknown): Verdict['brokenContract'] {
  const check = call.info?.check;
  if (!check || typeof result !== 'object' || result === null) return undefined;
  if (Reflect.get(result, 'isError') === true) return undefined;
  const structured: unknown = Reflect.get(result, 'structuredContent');
  if (structured === undefined)
    return [{ path: '(root)', code: 'missing', message: 'structuredContent is missing' }];
  return check(structured);
}

/** Ends a call with its final result (the upstream's answer, or a completed task's). */
export function endWithResult(
  call: OpenCall,
  c: CallContext,
  result: unknown,
  broken: Verdict['brokenContract'],
): void {
  // The result's measure and its output hash from one walk.
  const a = setMcpResult({}, result, c.hasher, c.redactor);
  if (broken) {
    end(call, a, brokenContractFailure(broken), sc.ERROR_CODES.INVALID_OUTPUT);
    return;
  }
  const outcome = outcomeOfPlainResult(result, undefined, undefined);
  if (outcome.ok) {
    end(call, a, undefined, '');
    return;
  }
  // Without the server's schemas, the SDK's own message says which fields it refused.
  const sdk = outcome.issues ? undefined : sdkValidationOfResult(result);
  const code = sdk && outcome.code === sc.ERROR_CODES.FAILED ? sdk.code : outcome.code;
  const failure = toolErrorFailure({
    code,
    retryable: outcome.retryable,
    partialEffect: outcome.partialEffect,
    reason: outcome.reason,
    issues: outcome.issues ?? sdk?.issues,
  });
  end(call, a, failure, code);
}

/**
 * Ends a call answered with a JSON-RPC error: `error.type` is its code, as a string. The error's message stays
 * out of the span (servers put argument values in it); from an SDK's -32602 only the paths it names are kept.
 */
export function endWithError(call: OpenCall, code: number, message: string): void {
  const sdk = code === INVALID_PARAMS ? sdkValidationOfText(message) : undefined;
  const failure = rpcFailure(code, {
    code: sdk?.code ?? sc.ERROR_CODES.FAILED,
    retryable: false,
    issues: sdk?.issues,
  });
  end(call, {}, failure, `JSON-RPC error ${code}`);
}

/** JSON-RPC's "invalid params": what older SDK 1.x releases answer for arguments that break the schema. */
const INVALID_PARAMS = -32602;

/** Ends a call left in flight when the upstream exited (or the proxy stopped): a write may have happened. */
export function endUnanswered(call: OpenCall): void {
  const failure: CallFailure = {
    type: sc.ERROR_TYPE_UPSTREAM_EXITED,
    code: sc.ERROR_CODES.FAILED,
    retryable: false,
    partialEffect: (call.info?.effect ?? sc.EFFECTS.write) === sc.EFFECTS.write,
  };
  end(call, {}, failure, 'upstream exited before answering');
}

/** Ends a call whose task failed or was cancelled. */
export function endWithFailure(call: OpenCall, failure: CallFailure, why: string): void {
  end(call, {}, failure, why);
}

/**
 * Ends a call that waited for a leg or a poll the proxy will not see: a part of its call, with its record and
 * linking hashes (the collector joins the parts), ended when the proxy last heard of it.
 */
export function endAsPart(call: OpenCall): void {
  const a = call.logical ? setLogical({}, call.logical) : {};
  call.span.setAttributes(a);
  const ns = call.lastSeenNs;
  call.span.end(ns === 0n ? undefined : [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)]);
}
