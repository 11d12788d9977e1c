// The stored tool calls a write reads back for pairing (pairing.ts) and for joining the parts of a logical call
// (process/join.ts), with the columns a `paired` or `joined` rollup needs: one column list and one row converter
// for both writers. A row's outcome (what a joined call takes from its last part) is read only for the rows with
// logical facts, which are few: the other rows' texts are not sent.

import { logicalFromJson } from '../calls/logical-call.js';
import type { StoredCall } from '../calls/pairing.js';
import type { StoredCallRow } from './batch-rows.js';
import { big, num, numOrNull, type Row, text, textOrNull } from './sql/db.js';

/** A column of the rows with logical facts only (null for the others). */
const ofParts = (column: string) =>
  `CASE WHEN logical IS NULL THEN NULL ELSE ${column} END AS ${column}`;

export const STORED_CALL_COLUMNS = `id, trace_seq, span_id, parent_span_id, call_id, tool, kind, paired, proxy, version,
  code, error_type, is_error, duration_ms, start_ns, result_bytes, result_tokens, client_name, client_version, part,
  logical, ${['input_hash', 'reason', 'retryable', 'partial_effect', 'output_hash', 'exception_type', 'exception_message', 'issues'].map(ofParts).join(', ')}`;

export function storedCallOf(r: Row): StoredCall<StoredCallRow> {
  const tool = text(r.tool);
  const logical = logicalFromJson(r.logical);
  const code = textOrNull(r.code);
  const errorType = textOrNull(r.error_type);
  const isError = num(r.is_error) === 1;
  const resultBytes = numOrNull(r.result_bytes);
  const resultTokens = numOrNull(r.result_tokens);
  return {
    spanId: text(r.span_id),
    parentSpanId: textOrNull(r.parent_span_id),
    callId: textOrNull(r.call_id),
    tool,
    kind: num(r.kind),
    proxy: num(r.proxy) === 1,
    paired: num(r.paired) === 1,
    row: {
      id: num(r.id),
      tool,
      version: textOrNull(r.version),
      code,
      errorType,
      isError,
      durationMs: num(r.duration_ms),
      startNs: big(r.start_ns),
      resultBytes,
      resultTokens,
      clientName: textOrNull(r.client_name),
      clientVersion: textOrNull(r.client_version),
      part: num(r.part),
      logical,
      inputHash: textOrNull(r.input_hash),
      outcome:
        logical === null
          ? null
          : {
              code,
              errorType,
              isError,
              resultBytes,
              resultTokens,
              reason: textOrNull(r.reason),
              retryable: numOrNull(r.retryable),
              partialEffect: num(r.partial_effect),
              outputHash: textOrNull(r.output_hash),
              exceptionType: textOrNull(r.exception_type),
              exceptionMessage: textOrNull(r.exception_message),
              issues: textOrNull(r.issues),
            },
    },
  };
}
