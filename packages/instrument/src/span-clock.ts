// Span starts in the order the spans start. The OpenTelemetry SDK takes a span's start from Date.now(), a whole
// millisecond, when none is given, and a warm agent makes several calls in one millisecond: their spans started
// at the same time, and a store could not tell their order (recovery's "what the agent did next",
// docs/recovery.md, then followed which of two concurrent writes a PostgreSQL collector committed first).
//
// A start here is Date.now(), as the SDK's, or one microsecond after the last start this process made when
// that is later: spans started within one millisecond keep their order, each still within its millisecond
// unless a thousand start in it. Not the monotonic clock anchored to the wall clock: an anchor read at any
// moment but a tick of Date.now() is up to a millisecond early, which put a span before a parent the SDK started
// a moment earlier, and reading it at a tick means waiting up to a millisecond, on a call's path when the
// clocks part. A span's end and events are its start plus the monotonic clock's time since (telemetry.ts).

let lastMs = 0;

/**
 * How far the wall clock must step back for starts to follow it at once. Smaller steps are run on from the last
 * start, a microsecond a span, until the wall clock passes it; a smaller bound would also be reached by a
 * thousand starts in one millisecond, and start the next one back at the wall clock, out of order.
 */
const STEP_BACK_MS = 1000;

/** The start of a span starting now, in milliseconds since the epoch. */
export function spanStartMs(): number {
  const wall = Date.now();
  // 0.001 ms is 4 ulps of a double near 1.8e12 (976.6 ns apart): distinct and in order.
  lastMs = wall > lastMs || wall < lastMs - STEP_BACK_MS ? wall : lastMs + 0.001;
  return lastMs;
}
