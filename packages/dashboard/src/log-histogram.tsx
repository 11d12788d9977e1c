// A histogram over the collector's 5 %-wide log buckets (latency: histogram.ts; result sizes: result-sizes.ts):
// empty buckets between the smallest and the largest value are drawn too, so the axis is a log scale.
export type LogBucket = { from: number; to: number; count: number };

export function LogHistogram({
  buckets,
  indexOf,
  format,
  label,
  axis,
}: {
  buckets: LogBucket[];
  /** The bucket's index from its upper bound. */
  indexOf: (to: number) => number;
  format: (value: number) => string;
  /** The list's accessible name. */
  label: string;
  /** What the axis measures. */
  axis: string;
}) {
  const first = buckets[0];
  const last = buckets.at(-1);
  if (!first || !last) return null;
  const byIndex = new Map(buckets.map((b) => [indexOf(b.to), b]));
  const lo = indexOf(first.to);
  const hi = indexOf(last.to);
  // Bounds rounded to whole units can make two tiny buckets read as one index: then the buckets as they are.
  const bars =
    hi - lo < 400 && byIndex.size === buckets.length
      ? Array.from(
          { length: hi - lo + 1 },
          (_, i) => byIndex.get(lo + i) ?? { from: 0, to: 0, count: 0 },
        )
      : buckets;
  const max = Math.max(...buckets.map((b) => b.count));
  return (
    <>
      <ol class="histogram" aria-label={label}>
        {bars.map((b, i) => (
          <li
            key={i}
            title={b.count ? `${format(b.from)} – ${format(b.to)}: ${b.count} calls` : ''}
          >
            {b.count > 0 && (
              <>
                <span class="bar" style={{ height: `${Math.max(2, (b.count / max) * 100)}%` }} />
                <span class="sr-only">
                  {format(b.from)} to {format(b.to)}: {b.count} calls
                </span>
              </>
            )}
          </li>
        ))}
      </ol>
      <div class="hist-axis" aria-hidden="true">
        <span>{format(first.from)}</span>
        <span>{axis}</span>
        <span>{format(last.to)}</span>
      </div>
    </>
  );
}
