// A role of the reader side (contract.ts): what recovery (docs/recovery.md) reads of stored calls. The failed calls
// of a window and every counted call of their scopes (a conversation across its traces, or a trace without
// one), in start order, with the envelope message each counted failure carried. The rule itself is pure
// (detectors/recovery.ts); this reads, nothing more.
import type { RecoveryCall } from '../calls/recovery-call.js';

/** A counted call of a scope as stored (the call model's shape, calls/recovery-call.ts). */
export type ScopeCallRecord = RecoveryCall;

export type RecoveryRead = {
  /** Failed calls in the window (of the tool asked for, or of all), however many. */
  failures: number;
  /** The span ids of the newest of them (at most the limit asked for): the failures to count. */
  counted: string[];
  /** Every counted call of the scopes those failures are in, per scope, in start order. */
  scopes: ScopeCallRecord[][];
  /** The envelope message of counted failures that carried one (read for the newest few hundred). */
  messages: Record<string, string>;
};

export interface RecoveryReader {
  /** The failures of [sinceNs, untilNs) (of `tool`, or every tool's), the newest `limit`, with their scopes. */
  recoveryScopes(
    sinceNs: bigint,
    untilNs: bigint,
    tool: string | undefined,
    limit: number,
  ): Promise<RecoveryRead>;
}

// Every method of RecoveryReader, once (a method added to the interface and not here fails to compile).
const METHODS: Record<keyof RecoveryReader, true> = { recoveryScopes: true };
export const RECOVERY_READER_METHODS = Object.keys(METHODS) as (keyof RecoveryReader)[];

/** The methods of `reader` as plain functions bound to it, for a backend object to spread. */
export function recoveryMethods(reader: RecoveryReader): RecoveryReader {
  return { recoveryScopes: reader.recoveryScopes.bind(reader) };
}

/** A RecoveryReader whose every method is `send(method, args)` (the SQLite reader thread). */
export function forwardRecovery(
  send: (method: keyof RecoveryReader, args: unknown[]) => Promise<unknown>,
): RecoveryReader {
  return {
    recoveryScopes: (...args) => send('recoveryScopes', args) as Promise<RecoveryRead>,
  };
}
