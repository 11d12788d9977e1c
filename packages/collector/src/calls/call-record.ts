// A recorded tool call: the call model's named fields (tool-call.ts) with the ids that place it in its trace and
// whether another row of the same call pairs it (pairing.ts). What storage reads back of a stored call and what
// the reading of a stored span gives; the API maps it to its `Call` shape (api/call-out.ts), the code by the
// one rule and an unknown partial effect as null.
import type { ToolCall } from './tool-call.js';

/** One recorded call; `source` may be unknown for rows stored before it was kept. */
export type RecordedCall = Omit<ToolCall, 'source' | 'idempotencyKeyHash'> & {
  source: string | null;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  /** A client (or proxy) row whose server row is known: the call is counted from the server's row. */
  paired: boolean;
};
