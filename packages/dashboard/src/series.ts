// The calls-over-time series of a range, fitted to the data (the demo's minutes were one spike at the
// right edge of 24 h). For a preset range whose calls all fall in its last quarter, the series is asked again
// from just before the first call, twice at most (the second ask reaches minute steps), so the chart's axis
// spans the data. The first answer stays on screen until the closer one arrives.
import { type TimeseriesResponse, timeseriesResponseSchema } from '@toolscope/collector/schemas';
import { query } from './api';
import { type Loaded, useApi } from './hooks';
import { rangeParams, type TimeRange } from './time';

/** Where a closer series should start, or null when the calls already span a quarter of it (or there are none). */
export function closerStart(s: TimeseriesResponse): string | null {
  const first = s.points.find((p) => p.calls > 0);
  const last = s.points.at(-1);
  if (!first || !last || s.points.length < 2) return null;
  const firstMs = Date.parse(first.t);
  const spanMs = Date.parse(last.t) + s.stepMs - Date.parse(s.points[0]?.t ?? first.t);
  const dataMs = Date.parse(last.t) + s.stepMs - firstMs;
  if (dataMs * 4 > spanMs) return null;
  return new Date(firstMs - s.stepMs).toISOString();
}

export function useFittedSeries(
  range: TimeRange,
  tick: number,
  tool?: string,
  byTool = false,
): Loaded<TimeseriesResponse> {
  const params = {
    ...rangeParams(range),
    ...(tool ? { tool } : {}),
    ...(byTool ? { byTool: 'true' } : {}),
  };
  const path = (since?: string) => `/api/timeseries${query(since ? { ...params, since } : params)}`;
  const whole = useApi(path(), timeseriesResponseSchema, tick);
  const fits = range.kind === 'preset';
  const start1 = fits && whole.state === 'ready' ? closerStart(whole.data) : null;
  const closer = useApi(start1 ? path(start1) : null, timeseriesResponseSchema, tick);
  const start2 = start1 && closer.state === 'ready' ? closerStart(closer.data) : null;
  const closest = useApi(start2 ? path(start2) : null, timeseriesResponseSchema, tick);
  if (start2 && closest.state === 'ready') return closest;
  if (start1 && closer.state === 'ready') return closer;
  return whole;
}
