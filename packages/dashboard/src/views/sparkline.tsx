// A tool's calls over the overview chart's own steps, in its table row: the line is calls, the red marks are
// steps with errors (their height is the step's errors on the same scale), so a tool that started failing at
// 14:00 shows it without opening its page. A tool whose calls all fall in one step gets no line: over a short
// range that is every tool, and each line would be the same diagonal from 0 to its count.
import { counted } from '../ui';

const W = 120;
const H = 24;

export function Sparkline({
  calls,
  errors,
  label,
}: {
  calls: number[];
  errors: number[];
  label: string;
}) {
  const max = Math.max(1, ...calls);
  const n = calls.length;
  const x = (i: number) => (n <= 1 ? W / 2 : (i * (W - 2)) / (n - 1) + 1);
  const y = (v: number) => H - 1 - (v * (H - 2)) / max;
  const line = calls.map((c, i) => `${x(i).toFixed(1)},${y(c).toFixed(1)}`).join(' ');
  const total = calls.reduce((a, b) => a + b, 0);
  const failed = errors.reduce((a, b) => a + b, 0);
  return (
    <svg
      class="spark"
      width={W}
      height={H}
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label={`${label}: ${counted(total, 'call')}, ${counted(failed, 'error')}, busiest step ${max}`}
    >
      <polyline points={line} class="spark-line" />
      {errors.map((e, i) =>
        e > 0 ? (
          <line
            key={i}
            x1={x(i)}
            x2={x(i)}
            y1={H - 1}
            y2={Math.min(H - 3, y(e))}
            class="spark-err"
          />
        ) : null,
      )}
    </svg>
  );
}

type Series = { calls: number[]; errors: number[] };

/** Whether a line would show anything the calls column does not: calls in two steps at least. */
export function drawable(series: Series | undefined): series is Series {
  return (series?.calls.filter((c) => c > 0).length ?? 0) >= 2;
}

/** A tool row's sparkline; a dash when it would say nothing, nothing while the series has not arrived. */
export function ToolSpark({ series, name }: { series: Series | undefined; name: string }) {
  if (!series) return null;
  return drawable(series) ? (
    <Sparkline calls={series.calls} errors={series.errors} label={`${name} over time`} />
  ) : (
    <span class="muted" title="all its calls fall in one step of the chart below">
      –
    </span>
  );
}
