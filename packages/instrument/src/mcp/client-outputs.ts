// The agent's side of a contract: the output schema each tool advertised in `tools/list`, and the
// check of every `structuredContent` against it, so a server that breaks its own contract shows up as
// INVALID_OUTPUT on the caller's span whether or not the SDK throws. Issues carry paths, never values. The
// check is the SDK's own validator (Ajv, json-schema-check.ts), so whatever the SDK client refuses is recorded
// with its paths; Zod's reading of the schema stands in only where Ajv is not installed.
import { z } from 'zod';
import type { ValidationIssue } from '../contract.js';
import { toValidationIssues } from '../issues.js';
import { compileSchemaCheck, type SchemaCheck } from '../json-schema-check.js';
import { isRecord } from './sdk-access.js';

type ZodChecker = { safeParse: (v: unknown) => { success: boolean; error?: z.ZodError } };

/** Remembers the advertised output schemas of one client's servers, by tool name. */
export class AdvertisedOutputs {
  readonly #checkers = new Map<string, SchemaCheck | null>();

  /** Reads a `tools/list` result: each tool's output schema replaces what was known of it. */
  remember(listResult: unknown): void {
    if (!isRecord(listResult) || !Array.isArray(listResult.tools)) return;
    for (const tool of listResult.tools as unknown[]) {
      if (!isRecord(tool) || typeof tool.name !== 'string') continue;
      this.#checkers.set(tool.name, checkerOf(tool.outputSchema));
    }
  }

  /** The issues of a successful result whose structuredContent breaks the advertised schema, else undefined. */
  check(toolName: string, result: unknown): ValidationIssue[] | undefined {
    const checker = this.#checkers.get(toolName);
    if (!checker || !isRecord(result) || result.isError === true) return undefined;
    if (result.structuredContent === undefined) {
      // MCP: a tool with an output schema must return structured content matching it.
      return [{ path: '', code: 'missing', message: 'structuredContent is missing' }];
    }
    return checker(result.structuredContent);
  }
}

function checkerOf(schema: unknown): SchemaCheck | null {
  const check = compileSchemaCheck(schema);
  if (check !== undefined) return check;
  const zod = zodCheckerOf(schema);
  if (!zod) return null;
  return (value) => {
    const parsed = zod.safeParse(value);
    return parsed.success || !parsed.error ? undefined : toValidationIssues(parsed.error.issues);
  };
}

function zodCheckerOf(schema: unknown): ZodChecker | null {
  // `fromJSONSchema` came with Zod 4.2; with an older peer the client-side check is off, not broken.
  const from: unknown = Reflect.get(z, 'fromJSONSchema');
  if (!isRecord(schema) || typeof from !== 'function') return null;
  try {
    return (from as (s: unknown) => ZodChecker)(schema);
  } catch {
    // A schema Zod cannot read: no check rather than a false INVALID_OUTPUT.
    return null;
  }
}
