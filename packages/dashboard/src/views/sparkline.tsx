// A tool's calls over the overview chart's own steps, in its table row: the line is calls, the red marks are
// steps with errors (their height is the step's errors on the same scale), so a tool that started failing at
// 14:00 shows it without opening its page.
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
      aria-label={`${label}: ${total} calls, ${failed} errors, busiest step ${max}`}
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

/** A tool row's sparkline, or nothing while the series has not arrived (or the tool had no calls in it). */
export function ToolSpark({
  series,
  name,
}: {
  series: { calls: number[]; errors: number[] } | undefined;
  name: string;
}) {
  return series ? (
    <Sparkline calls={series.calls} errors={series.errors} label={`${name} over time`} />
  ) : null;
}
