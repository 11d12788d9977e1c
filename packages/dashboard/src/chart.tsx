// Calls and error rate over time (uPlot: a 50 kB canvas chart, no DOM per point).
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export type SeriesPoint = { t: string; calls: number; errors: number };

export function CallsChart({ points, label }: { points: SeriesPoint[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = points.map((p) => Date.parse(p.t) / 1000);
    const calls = points.map((p) => p.calls);
    const rates = points.map((p) => (p.calls === 0 ? null : (p.errors / p.calls) * 100));
    const width = Math.max(320, el.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 220,
        scales: { x: { time: true }, pct: { range: [0, 100] } },
        series: [
          {},
          {
            label: 'calls',
            stroke: '#3b6fd8',
            fill: 'rgba(59,111,216,0.12)',
            width: 1.5,
            value: (_u, v) => (v === null ? '–' : String(v)),
          },
          {
            label: 'error rate',
            scale: 'pct',
            stroke: '#d8453b',
            width: 1.5,
            spanGaps: false,
            value: (_u, v) => (v === null ? '–' : `${v.toFixed(1)} %`),
          },
        ],
        axes: [
          {},
          { label: 'calls', size: 56 },
          {
            side: 1,
            scale: 'pct',
            label: 'error rate',
            grid: { show: false },
            values: (_u, vals) => vals.map((v) => `${v} %`),
          },
        ],
      },
      [xs, calls, rates],
      el,
    );
    const resize = () => plot.setSize({ width: Math.max(320, el.clientWidth), height: 220 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [points]);
  // The time the axis starts at, for a reader of the page's markup (and the tests): the canvas says nothing.
  return (
    <div class="chart" ref={box} role="img" aria-label={label} data-from={points[0]?.t ?? ''} />
  );
}
