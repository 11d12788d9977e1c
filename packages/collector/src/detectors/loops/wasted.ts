// What a loop wasted (evidence.wasted): the calls after its first round, the time and result tokens they took,
// the model's tokens spent between them, and each of those calls' share; and the same in words for a summary.
import type { ScopeCall, ScopeModelCall, Wasted, WastedCall } from './scope.js';

/**
 * What a loop wasted, from its calls in start order and the scope's model calls.
 *
 * - `calls`: the calls after the first round (`firstRound` calls; 1 for a repeat, k for a cycle of k steps).
 * - `ms`: from the end of the first round (its last call's `endNs`) to the latest end among the later calls, in
 *   milliseconds; never negative.
 * - `resultTokens`: the sum of the later calls' `resultTokens` (an unknown count adds 0).
 * - `modelTokens`: the sum of `tokens` of the model calls that start strictly after the first round ends and
 *   strictly before the last call ends: the model's reading and writing while the loop went on.
 * - `spans`: each later call with its share of those: the time from the latest end among the loop's calls
 *   before it (the first round's end for the first) to its own end (0 when an earlier call ended later), its
 *   result tokens, and the model calls that started in that time. The shares add up to the totals, so a sum
 *   over flags that share calls can count each call once (waste-total.ts).
 *
 * A loop with no call after its first round wasted nothing.
 */
export function computeWasted(
  calls: readonly ScopeCall[],
  firstRound: number,
  modelCalls: readonly ScopeModelCall[],
): Wasted {
  const later = calls.slice(firstRound);
  const roundEnd = calls[Math.min(firstRound, calls.length) - 1];
  if (later.length === 0 || roundEnd === undefined) {
    return { calls: 0, ms: 0, resultTokens: 0, modelTokens: 0, spans: [] };
  }
  const from = roundEnd.endNs;
  // The end each share reaches: the running latest end, so that shares never overlap and add up to the total.
  const reached: bigint[] = [];
  let to = from;
  for (const c of later) {
    if (c.endNs > to) to = c.endNs;
    reached.push(to);
  }
  const spans: WastedCall[] = later.map((c) => ({
    spanId: c.spanId,
    ms: 0,
    resultTokens: c.resultTokens ?? 0,
    modelTokens: 0,
  }));
  let shareStart = from;
  for (let i = 0; i < later.length; i++) {
    const end = reached[i] as bigint;
    // Exact in nanoseconds first, then one division: a float of the absolute times would lose the sub-ms part.
    (spans[i] as WastedCall).ms = Number(end - shareStart) / 1e6;
    shareStart = end;
  }
  let modelTokens = 0;
  for (const m of modelCalls) {
    if (m.startNs <= from || m.startNs >= to) continue;
    modelTokens += m.tokens;
    // The share whose time the model call started in: the first that reaches past its start.
    (spans[firstPast(reached, m.startNs)] as WastedCall).modelTokens += m.tokens;
  }
  let resultTokens = 0;
  for (const s of spans) resultTokens += s.resultTokens;
  return { calls: later.length, ms: Number(to - from) / 1e6, resultTokens, modelTokens, spans };
}

/** The first index of non-decreasing `ends` whose value is past `ns` (ends.length when none is). */
function firstPast(ends: readonly bigint[], ns: bigint): number {
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ends[mid] as bigint) > ns) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * A count in words' short form: exact under 1,000, then thousands with one decimal under 10k and whole above
 * ("950", "4.2k", "9k", "12k"), and millions likewise ("4.2M", "99M"); a trailing ".0" is dropped, so 9,000
 * reads "9k".
 */
export function compactCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${oneDecimalUnderTen(n / 1000)}k`;
  return `${oneDecimalUnderTen(n / 1_000_000)}M`;
}

/**
 * A duration in words' short form: whole milliseconds under 1 s, then seconds, minutes and hours, each with one
 * decimal under 10 of its unit and whole above ("340 ms", "4.2 s", "42 s", "3.5 min", "4 h").
 */
export function compactDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${oneDecimalUnderTen(s)} s`;
  const min = s / 60;
  if (min < 60) return `${oneDecimalUnderTen(min)} min`;
  return `${oneDecimalUnderTen(min / 60)} h`;
}

/**
 * What a loop wasted in words, for a flag's summary: "3 more rounds, 4.2 s, about 9k model tokens" when
 * `moreRounds` is given (a cycle), else "2 more calls, 340 ms, 950 model tokens" (a repeat, a churn, a poll).
 * The model tokens are left out when none were spent (or none were traced), and "about" is said only when the
 * count was rounded. The result tokens stay in the evidence: the model tokens already include what was read.
 */
export function wastedSummary(w: Wasted, moreRounds?: number): string {
  const more =
    moreRounds === undefined
      ? `${w.calls} more ${w.calls === 1 ? 'call' : 'calls'}`
      : `${moreRounds} more ${moreRounds === 1 ? 'round' : 'rounds'}`;
  const parts = [more, compactDuration(w.ms)];
  if (w.modelTokens > 0) {
    const about = w.modelTokens >= 1000 ? 'about ' : '';
    const unit = w.modelTokens === 1 ? 'model token' : 'model tokens';
    parts.push(`${about}${compactCount(w.modelTokens)} ${unit}`);
  }
  return parts.join(', ');
}

function oneDecimalUnderTen(x: number): string {
  return x < 10 ? trimZero(x.toFixed(1)) : String(Math.round(x));
}

function trimZero(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}
