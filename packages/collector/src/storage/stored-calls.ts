// The stored tool calls a write reads back for pairing (pairing.ts), with the columns a `paired` rollup needs:
// one column list and one row converter for both writers.

import type { StoredCall } from '../calls/pairing.js';
import type { StoredCallRow } from './batch-rows.js';
import { big, num, numOrNull, type Row, text, textOrNull } from './sql/db.js';

export const STORED_CALL_COLUMNS = `id, trace_seq, span_id, parent_span_id, call_id, tool, kind, paired, proxy, version,
  code, error_type, is_error, duration_ms, start_ns, result_bytes, result_tokens, client_name, client_version`;

export function storedCallOf(r: Row): StoredCall<StoredCallRow> {
  const tool = text(r.tool);
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
      code: textOrNull(r.code),
      errorType: textOrNull(r.error_type),
      isError: num(r.is_error) === 1,
      durationMs: num(r.duration_ms),
      startNs: big(r.start_ns),
      resultBytes: numOrNull(r.result_bytes),
      resultTokens: numOrNull(r.result_tokens),
      clientName: textOrNull(r.client_name),
      clientVersion: textOrNull(r.client_version),
    },
  };
}
