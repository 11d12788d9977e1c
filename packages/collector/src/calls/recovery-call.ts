// A tool call as one step of an agent's scope when recovery reads it: which tool, with which input, how it ended,
// under which agent call id, and when. One shape for the reader that fetches it and the rule that reads it.

/** A counted tool call of a scope (each call once). */
export type RecoveryCall = {
  traceId: string;
  spanId: string;
  tool: string;
  /** Keyed hash of the input: equal inputs, equal hash; null when the span had none. */
  inputHash: string | null;
  /** The code rule's value (code.ts); null for a success. */
  code: string | null;
  /** The agent's own id for the call (`gen_ai.tool.call.id`), when it gave one. */
  callId: string | null;
  startNs: bigint;
};
