// How durations and rates are written for people: one definition for `toolscope report` and the dashboard (which
// imports it through `@toolscope/collector/schemas`), so a p95 reads the same in a CI summary and on the page.

/** A duration in milliseconds: µs below 1 ms, two decimals below 10 ms, one below 1 s, then seconds. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** A rate (0..1) as a percentage with one decimal, two for a rate under 0.1 % that is not zero. */
export function formatPercent(rate: number): string {
  return `${(rate * 100).toFixed(rate > 0 && rate < 0.001 ? 2 : 1)} %`;
}
