// The idempotent path of a call: a completed key replays, a key in flight is awaited, a key reused with other
// input is refused, and only final outcomes are stored.
import { diag } from '@opentelemetry/api';
import type { z } from 'zod';
import { attempts } from './attempts.js';
import { failure } from './envelope.js';
import { digest } from './hashing.js';
import { idempotencyRecordSchema } from './idempotency.js';
import type { Executed, Opts, ToolInternals } from './internal-types.js';
import { replayRecord } from './span-result.js';
import type { SafeSpan } from './telemetry.js';

function reused(t: ToolInternals, attempt: number): Executed {
  return {
    result: failure({
      code: 'REJECTED',
      tool: t.name,
      attempt,
      retryable: false,
      partialEffect: false,
      reason: 'idempotency_key_reused',
      message: `This idempotency key was already used for a different ${t.name} request; use a new key for a new request.`,
    }),
    replay: false,
    failedAttempts: 0,
  };
}

/** Runs a call that carries an idempotency key. */
export async function runIdempotent(
  t: ToolInternals,
  input: unknown,
  key: string,
  inputText: string,
  opts: Opts,
  firstAttempt: number,
  span: SafeSpan,
): Promise<Executed> {
  const storeKey = digest(`${t.name}\u0000${key}`);
  const inputDigest = digest(inputText);
  const pending = t.inFlight.get(storeKey);
  if (pending) {
    // The same key is executing right now: wait for it instead of running the effect twice.
    if (pending.inputDigest !== inputDigest) return reused(t, firstAttempt);
    const first = await pending.done;
    return { result: first.result, replay: true, failedAttempts: 0 };
  }
  const done = (async (): Promise<Executed> => {
    const stored = await readStore(t, storeKey);
    if (stored.kind === 'unavailable') {
      return {
        result: failure({
          code: 'RETRYABLE',
          tool: t.name,
          attempt: firstAttempt,
          retryable: true,
          partialEffect: false,
          reason: 'idempotency_store_unavailable',
        }),
        replay: false,
        failedAttempts: 0,
      };
    }
    if (stored.record) {
      if (stored.record.inputDigest !== inputDigest) return reused(t, firstAttempt);
      return {
        result: await replayRecord(t, stored.record.outcome, firstAttempt),
        replay: true,
        failedAttempts: 0,
      };
    }
    const executed = await attempts(t, input, opts, firstAttempt, span);
    await writeStore(t, storeKey, inputDigest, executed);
    return executed;
  })();
  t.inFlight.set(storeKey, { inputDigest, done });
  try {
    return await done;
  } finally {
    t.inFlight.delete(storeKey);
  }
}

type StoreRead =
  | { kind: 'ok'; record: z.infer<typeof idempotencyRecordSchema> | undefined }
  | { kind: 'unavailable' };

async function readStore(t: ToolInternals, key: string): Promise<StoreRead> {
  try {
    const raw = await t.store.get(key);
    if (raw === undefined || raw === null) return { kind: 'ok', record: undefined };
    const parsed = idempotencyRecordSchema.safeParse(raw);
    if (parsed.success) return { kind: 'ok', record: parsed.data };
    diag.warn(`@toolscope/instrument: ignoring a malformed idempotency record for ${t.name}`);
    return { kind: 'ok', record: undefined };
  } catch (error) {
    diag.error(`@toolscope/instrument: idempotency store read failed for ${t.name}`, error);
    return { kind: 'unavailable' };
  }
}

async function writeStore(
  t: ToolInternals,
  key: string,
  inputDigest: string,
  done: Executed,
): Promise<void> {
  const r = done.result;
  const outcome = r.ok
    ? { kind: 'ok' as const, output: done.rawOutput, attempt: r.attempt }
    : r.code === 'REJECTED' && r.reason !== undefined
      ? { kind: 'rejected' as const, reason: r.reason, message: r.message, attempt: r.attempt }
      : undefined;
  // Only outcomes that are final are remembered; a failure must stay retryable with the same key.
  if (!outcome) return;
  try {
    await t.store.set(key, { inputDigest, storedAt: Date.now(), outcome }, t.idempotencyTtlMs);
  } catch (error) {
    diag.error(`@toolscope/instrument: idempotency store write failed for ${t.name}`, error);
  }
}
