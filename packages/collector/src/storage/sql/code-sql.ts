// The code rule (calls/code.ts) in SQL over tool_calls' columns, for both backends: every filter and
// aggregate on a call's code uses it. test/code-rule.test.ts holds it to the JS rule on both backends.
import { BARE_ERROR_CODE } from '../../calls/code.js';

/**
 * callCode as SQL: '' for a success. NULLIF on both columns, since a producer may send an empty error.type,
 * which the rule skips.
 */
export const CODE_KEY_SQL = `COALESCE(NULLIF(code, ''), NULLIF(error_type, ''), CASE WHEN is_error = 1 THEN '${BARE_ERROR_CODE}' ELSE '' END)`;
