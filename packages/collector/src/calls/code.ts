// The code rule, the one definition of what a failed call is called everywhere (calls, tools, flags, report,
// dashboard): the Toolscope envelope's code, else the span's error.type, else ERROR when the span's status
// says it failed without naming why. Storage's SQL twin is storage/sql/code-sql.ts, held to this by a test.

/** The code of a failed call; null for a call that succeeded. */
export function callCode(
  code: string | null,
  errorType: string | null,
  isError: boolean,
): string | null {
  if (code !== null && code !== '') return code;
  if (errorType !== null && errorType !== '') return errorType;
  return isError ? BARE_ERROR_CODE : null;
}

/** What a call that failed by its status alone (OTLP status ERROR, no code, no error.type) is counted as. */
export const BARE_ERROR_CODE = 'ERROR';

/** The key of a call in per-code counts: its code, or '' for a success. */
export const codeKey = (code: string | null, errorType: string | null, isError: boolean): string =>
  callCode(code, errorType, isError) ?? '';
