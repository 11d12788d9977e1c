// Every call of a story on one shared time axis: one lane per tool, a bar per call from its first span's start
// to its last span's end, coloured by its code (codes.ts), so a loop reads as a row of same-coloured bars and a
// slow call as a long one. Drawn as SVG (a few dozen elements); clicking a bar focuses its row.
import { codeColor } from '../codes';
import type { StoryRow } from '../story-model';
import { formatMs } from '../time';

const LANE = 16;
const LABEL = 150;
const WIDTH = 1000;
const AXIS = 18;

export function StoryTimeline({ rows, onPick }: { rows: StoryRow[]; onPick: (n: number) => void }) {
  const tools = [...new Set(rows.map((r) => r.call.tool))].sort();
  // Rows come in start order; the last to end need not be the last to start.
  const t0 = rows[0]?.startNs ?? 0n;
  let t1 = t0 + 1n;
  for (const r of rows) if (r.endNs > t1) t1 = r.endNs;
  const totalMs = Number(t1 - t0) / 1e6;
  const x = (ns: bigint) => LABEL + ((WIDTH - LABEL - 4) * Number(ns - t0)) / Number(t1 - t0);
  const height = tools.length * LANE + AXIS;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const codes = [...new Set(rows.map((r) => r.call.code ?? 'OK'))].sort();
  return (
    <figure class="story-timeline">
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="img"
        aria-label="calls on a shared time axis"
        // Scaled as a whole to the panel's width (its height follows), so the labels keep their shape.
      >
        {tools.map((tool, lane) => (
          <text key={tool} x={LABEL - 6} y={lane * LANE + 12} text-anchor="end" class="lane">
            {tool.length > 22 ? `${tool.slice(0, 21)}…` : tool}
          </text>
        ))}
        {ticks.map((f) => (
          <g key={f}>
            <line
              x1={LABEL + (WIDTH - LABEL - 4) * f}
              x2={LABEL + (WIDTH - LABEL - 4) * f}
              y1={0}
              y2={tools.length * LANE}
              class="tick"
            />
            <text
              x={LABEL + (WIDTH - LABEL - 4) * f}
              y={height - 4}
              text-anchor={f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}
              class="axis"
            >
              {f === 0 ? '0' : `+${formatMs(totalMs * f)}`}
            </text>
          </g>
        ))}
        {rows.map((r) => {
          const lane = tools.indexOf(r.call.tool);
          const left = x(r.startNs);
          const w = Math.max(3, x(r.endNs) - left);
          return (
            // biome-ignore lint/a11y/noStaticElementInteractions: a pointer shortcut only; the keyboard moves between the rows themselves.
            <rect
              key={r.n}
              data-n={r.n}
              data-code={r.call.code ?? 'OK'}
              x={left}
              y={lane * LANE + 3}
              width={w}
              height={LANE - 6}
              fill={codeColor(r.call.code)}
              onClick={() => onPick(r.n)}
            >
              <title>
                #{r.n} {r.call.tool} {r.call.code ?? 'OK'} {formatMs(r.durationMs)}
              </title>
            </rect>
          );
        })}
      </svg>
      <figcaption class="legend">
        {codes.map((c) => (
          <span key={c} class="legend-item">
            <svg width="10" height="10" aria-hidden="true">
              <rect width="10" height="10" fill={codeColor(c)} />
            </svg>{' '}
            {c}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
