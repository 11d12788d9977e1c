// A histogram over the collector's 5 %-wide log buckets (aggregation/log-buckets.ts):
// empty buckets between the smallest and the largest value are drawn too, so the axis is a log scale. A y-axis
// of calls, and marks (p50, p95, p99) over the bars that hold them.
import { logBucketOfUpperBound } from '@toolscope/collector/schemas';
import { counted } from './ui';

export type LogBucket = { from: number; to: number; count: number };
export type Mark = { label: string; value: number | null };

export function LogHistogram({
  buckets,
  unit,
  format,
  label,
  axis,
  marks = [],
}: {
  buckets: LogBucket[];
  /** The bucket's index from its upper bound. */
  /** Values per unit of the collector's buckets (1,000 for milliseconds, whose buckets count µs; 1 for bytes). */
  unit: number;
  format: (value: number) => string;
  /** The list's accessible name. */
  label: string;
  /** What the axis measures. */
  axis: string;
  marks?: Mark[];
}) {
  const first = buckets[0];
  const last = buckets.at(-1);
  if (!first || !last) return null;
  // The collector's buckets (its log-buckets.ts), counted in units: a bar's index from its upper bound.
  const indexOf = (to: number) => logBucketOfUpperBound(to * unit);
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
  // A percentile is a bucket's middle, so it lies in a bar that has calls.
  const placed = marks.flatMap((m) => {
    const v = m.value;
    if (v === null) return [];
    const i = bars.findIndex((b) => b.count > 0 && v >= b.from && v <= b.to);
    return i < 0 ? [] : [{ ...m, left: ((i + 0.5) / bars.length) * 100 }];
  });
  return (
    <>
      <div class="hist-frame">
        <div class="hist-y" aria-hidden="true">
          <span>{max}</span>
          <span>{max > 1 ? Math.round(max / 2) : ''}</span>
          <span>0</span>
        </div>
        <div class="hist-plot">
          {placed.map((m, k) => (
            <span
              key={m.label}
              class="hist-mark"
              // Labels step down, so marks in one bar (p95 and p99, often) stay readable.
              style={{ left: `${m.left}%`, paddingTop: `${k * 13}px` }}
              title={`${m.label} ${format(m.value ?? 0)}`}
              data-mark={m.label}
            >
              {m.label}
            </span>
          ))}
          <ol class="histogram" aria-label={label}>
            {bars.map((b, i) => (
              <li
                key={i}
                title={
                  b.count ? `${format(b.from)} – ${format(b.to)}: ${counted(b.count, 'call')}` : ''
                }
              >
                {b.count > 0 && (
                  <>
                    <span
                      class="bar"
                      style={{ height: `${Math.max(2, (b.count / max) * 100)}%` }}
                    />
                    <span class="sr-only">
                      {format(b.from)} to {format(b.to)}: {counted(b.count, 'call')}
                    </span>
                  </>
                )}
              </li>
            ))}
          </ol>
        </div>
      </div>
      <div class="hist-axis" aria-hidden="true">
        <span>{format(first.from)}</span>
        <span>{axis}</span>
        <span>{format(last.to)}</span>
      </div>
    </>
  );
}
