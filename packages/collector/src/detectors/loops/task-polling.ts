// polling_faster_than_interval: a client polled a task (`tasks/get`, the Tasks extension) much faster than the
// poll interval the server asked for. One logical call carries its polls and the server's `pollIntervalMs`
// (calls/logical-call.ts), so the rule reads one call: its polls spread over its duration give the observed
// interval. A pure function over one scope's calls, like every loop detector.
import { flagOf, keysOf } from './flag-of.js';
import type { LoopDetector, LoopFlag, LoopScope, LoopThresholds, ScopeCall } from './scope.js';

/**
 * How much faster than the server's interval a client must poll to be flagged: at least twice as often. A
 * client that waits the interval between polls (ext-tasks does) polls a little slower than it, since the task's
 * creation and each poll's own time add to the call's duration.
 */
export const POLL_FASTER_BY = 2;

/** The mean time between a call's polls, in milliseconds: its duration over its polls. */
const observedIntervalMs = (c: ScopeCall, polls: number): number =>
  Number(c.endNs - c.startNs) / 1e6 / polls;

/** Whether a call is a task polled at least `minPolls` times, at least POLL_FASTER_BY × faster than asked. */
function tooFast(c: ScopeCall, minPolls: number): boolean {
  const polls = c.taskPolls;
  const interval = c.pollIntervalMs;
  if (polls === null || interval === null || interval <= 0 || polls < minPolls) return false;
  return observedIntervalMs(c, polls) * POLL_FASTER_BY <= interval;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function fastPollFlag(c: ScopeCall): LoopFlag {
  const polls = c.taskPolls as number;
  const interval = c.pollIntervalMs as number;
  const observed = round(observedIntervalMs(c, polls));
  const times = observed > 0 ? `${round(interval / observed)}×` : 'far';
  const flag = flagOf(
    'polling_faster_than_interval',
    'warning',
    [c],
    `${c.tool}'s task was polled ${polls} times, every ${observed} ms on average, though the server asked for a poll every ${interval} ms (${times} as often): the client ignores pollIntervalMs and loads the server for answers that cannot have changed.`,
    { polls, pollIntervalMs: interval, observedPollIntervalMs: observed },
  );
  return { ...flag, count: polls };
}

/** The flags of a scope's calls: one per task polled too fast. */
function detectFastPolling(scope: LoopScope, t: LoopThresholds): LoopFlag[] {
  return scope.calls.filter((c) => tooFast(c, t.pollMinCalls)).map(fastPollFlag);
}

/** A call's key when it is a task polled too fast (whatever its number of polls): its own span, seen once. */
const fastPollKey = (c: ScopeCall): string | null =>
  c.taskPolls !== null && c.pollIntervalMs !== null && tooFast(c, 1)
    ? `fast-poll\u0000${c.spanId}`
    : null;

/**
 * The polling_faster_than_interval detector. One call makes the flag, so a call's key needs no earlier call
 * (priorCalls 0); only calls polled too fast have a key, and the threshold is checked in `detect`.
 */
export const taskPolling: LoopDetector = {
  kinds: ['polling_faster_than_interval'],
  reads: 'tool',
  priorCalls: () => 0,
  triggerKeys: keysOf(fastPollKey),
  triggerKey: fastPollKey,
  detect: detectFastPolling,
};
