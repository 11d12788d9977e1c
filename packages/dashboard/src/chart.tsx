// Calls over time, stacked by outcome: successful calls at the bottom, then each error code in its colour
// (codes.ts), with the error rate as a line on its own axis (uPlot: a 50 kB canvas chart, no DOM per point).
// uPlot draws bars from zero, so the stack is drawn as cumulative bars, tallest first; the legend shows each
// layer's own count.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { codeColor, OK_COLOR } from './codes';

export type SeriesPoint = {
  t: string;
  calls: number;
  errors: number;
  errorsByCode: Record<string, number>;
};

type Layer = { label: string; color: string; counts: number[] };

/** The stack's layers, bottom first: successful calls, then codes by total errors (most first). */
export function layersOf(points: SeriesPoint[]): Layer[] {
  const totals = new Map<string, number>();
  for (const p of points)
    for (const [code, n] of Object.entries(p.errorsByCode))
      totals.set(code, (totals.get(code) ?? 0) + n);
  const codes = [...totals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([c]) => c);
  const layers: Layer[] = [
    { label: 'OK', color: OK_COLOR, counts: points.map((p) => p.calls - p.errors) },
    ...codes.map((code) => ({
      label: code,
      color: codeColor(code),
      counts: points.map((p) => p.errorsByCode[code] ?? 0),
    })),
  ];
  // Errors no code accounts for (a foreign span with an error status and no error.type).
  const other = points.map(
    (p) => p.errors - Object.values(p.errorsByCode).reduce((n, c) => n + c, 0),
  );
  if (other.some((n) => n > 0))
    layers.push({ label: 'ERROR', color: codeColor('ERROR'), counts: other });
  return layers;
}

export function CallsChart({ points, label }: { points: SeriesPoint[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = points.map((p) => Date.parse(p.t) / 1000);
    const rates = points.map((p) => (p.calls === 0 ? null : (p.errors / p.calls) * 100));
    const layers = layersOf(points);
    // Running sums: layer i's bar is as tall as layers 0..i together.
    const cumulative: number[][] = [];
    for (const layer of layers) {
      const below = cumulative.at(-1);
      cumulative.push(layer.counts.map((n, j) => n + (below?.[j] ?? 0)));
    }
    const bars = uPlot.paths.bars?.({ size: [0.8, 40], gap: 1 });
    const stack: { series: uPlot.Series; data: number[] }[] = layers
      .map((layer, i) => ({
        series: {
          label: layer.label,
          stroke: layer.color,
          fill: layer.color,
          width: 0,
          ...(bars ? { paths: bars } : {}),
          // The layer's own count, not the stack's height at it.
          value: (_u: uPlot, _v: number | null, _s: number, idx: number | null) =>
            idx === null ? '–' : String(layer.counts[idx] ?? 0),
        },
        data: cumulative[i] ?? [],
      }))
      .reverse();
    const width = Math.max(320, el.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 220,
        scales: {
          // One step alone (a range of a minute): uPlot would stretch the axis over a thousand days from it;
          // it spans a minute either side instead (the API's steps are a minute at least).
          x: {
            time: true,
            range: (u, min, max) => {
              const only = u.data[0].length === 1 ? u.data[0][0] : undefined;
              return only === undefined ? [min, max] : [only - 60, only + 60];
            },
          },
          pct: { range: [0, 100] },
        },
        series: [
          {},
          ...stack.map((l) => l.series),
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
      [xs, ...stack.map((l) => l.data), rates],
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
