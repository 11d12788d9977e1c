// MCP `CallToolResult`s: how an envelope becomes one (structuredContent + TextContent, isError on failure),
// and what a plain tool's result says about the call (isError is a tool error, not a protocol error).
import type { z } from 'zod';
import { type ToolResult, toolFailureSchema, type ValidationIssue } from '../contract.js';
import { toValidationIssues } from '../issues.js';
import type { ErrorCode } from '../semconv.js';
import { isRecord } from './sdk-access.js';

export type CallToolResultShape = {
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
};

/** The MCP result of a `defineTool` call: data on success, the whole envelope with `isError` on failure. */
export function toCallToolResult(result: ToolResult<unknown>): CallToolResultShape {
  if (result.ok) {
    const data = isRecord(result.data) ? result.data : { value: result.data };
    return {
      content: [{ type: 'text', text: JSON.stringify(result.data) }],
      structuredContent: data,
    };
  }
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result as unknown as Record<string, unknown>,
    isError: true,
  };
}

export type ToolOutcome =
  | { ok: true }
  | {
      ok: false;
      code: ErrorCode;
      issues: ValidationIssue[] | undefined;
      reason: string | undefined;
      retryable: boolean;
      partialEffect: boolean;
    };

const OK: ToolOutcome = Object.freeze({ ok: true });

type ZodLike = {
  safeParse: (v: unknown) => { success: boolean; error?: { issues: z.core.$ZodIssue[] } };
};

function isZod(schema: unknown): schema is ZodLike {
  return isRecord(schema) && typeof schema.safeParse === 'function' && '_zod' in schema;
}

function textOf(result: Record<string, unknown>): string {
  const content = result.content;
  if (!Array.isArray(content)) return '';
  const first: unknown = content[0];
  return isRecord(first) && typeof first.text === 'string' ? first.text : '';
}

/**
 * What a plain (not `defineTool`) tool's result means, reading our envelope or the SDK's validation errors. With the
 * tool's registered Zod schemas, the issues of an SDK validation error are read again: the input's from `args`, the
 * output's from `output`, the `structuredContent` the handler returned (the SDK's error result carries none); an
 * observer outside the server's process (the proxy, a client) passes neither and gets the code without issues.
 */
export function outcomeOfPlainResult(
  result: unknown,
  args: unknown,
  schemas: { input: unknown; output: unknown } | undefined,
  output?: { structuredContent: unknown },
): ToolOutcome {
  if (!isRecord(result) || result.isError !== true) return OK;
  const envelope = toolFailureSchema.safeParse(result.structuredContent);
  if (envelope.success) {
    const e = envelope.data;
    return {
      ok: false,
      code: e.code,
      issues: e.issues,
      reason: e.reason,
      retryable: e.retryable,
      partialEffect: e.partialEffect,
    };
  }
  const text = textOf(result);
  const failed = (code: ErrorCode, issues?: ValidationIssue[]): ToolOutcome => ({
    ok: false,
    code,
    issues,
    reason: undefined,
    retryable: false,
    partialEffect: false,
  });
  // Both SDK majors turn their own schema checks into isError results with these prefixes.
  if (text.includes('Input validation error')) {
    const parsed = isZod(schemas?.input) ? schemas.input.safeParse(args ?? {}) : undefined;
    return failed(
      'INVALID_INPUT',
      parsed?.error ? toValidationIssues(parsed.error.issues) : undefined,
    );
  }
  if (text.includes('Output validation error')) {
    // Without the handler's own result nothing says which path failed: no issue rather than a wrong one.
    const parsed =
      output && isZod(schemas?.output)
        ? schemas.output.safeParse(output.structuredContent)
        : undefined;
    return failed(
      'INVALID_OUTPUT',
      parsed?.error ? toValidationIssues(parsed.error.issues) : undefined,
    );
  }
  return failed('FAILED');
}
