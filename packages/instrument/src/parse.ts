// Schema parsing as a value: sync first, async only for schemas with async refinements; a throwing refinement
// becomes a `crashed` result instead of escaping. Sync results stay sync: this runs twice on every call.
import { z } from 'zod';

export type ParseOutcome =
  | { kind: 'ok'; data: unknown }
  | { kind: 'invalid'; issues: ReadonlyArray<z.core.$ZodIssue> }
  | { kind: 'crashed'; error: unknown };

function fromResult(result: z.ZodSafeParseResult<unknown>): ParseOutcome {
  return result.success
    ? { kind: 'ok', data: result.data }
    : { kind: 'invalid', issues: result.error.issues };
}

/** Parses `value`; a Promise only when the schema has async parts. */
export function parseValue(
  schema: z.ZodType,
  value: unknown,
): ParseOutcome | Promise<ParseOutcome> {
  try {
    return fromResult(schema.safeParse(value));
  } catch (error) {
    if (!(error instanceof z.core.$ZodAsyncError)) return { kind: 'crashed', error };
    return schema
      .safeParseAsync(value)
      .then(fromResult, (e: unknown) => ({ kind: 'crashed', error: e }));
  }
}
