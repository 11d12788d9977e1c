// Span times to the microsecond. The OpenTelemetry SDK takes a span's start from Date.now(), whole milliseconds,
// when none is given, so the calls an agent makes within one millisecond (a warm process makes several) start
// at the same time and a store cannot tell their order: recovery's "what the agent did next"
// (docs/recovery.md) then depended on which of two concurrent writes a PostgreSQL collector committed first.
// A start here is the monotonic clock (performance.now()) plus an anchor, the wall-clock time of its zero.
// The anchor is taken once and again whenever the two clocks part by more than a millisecond (the wall clock
// stepped, the machine slept), so a start stays within about a millisecond of Date.now() and follows the order
// of the calls between such steps. A span keeps the anchor its start used for its end and events, so its
// duration is the monotonic clock's.

let anchorMs = Date.now() - performance.now();

/** The anchor for a time read from performance.now() as `now`, moved first if the clocks have parted. */
export function anchorAt(now: number): number {
  const wall = Date.now();
  const t = anchorMs + now;
  // Date.now() is the millisecond under the true time: a start of the right anchor is within one of it.
  if (t < wall - 1 || t > wall + 1) anchorMs = wall - now;
  return anchorMs;
}
