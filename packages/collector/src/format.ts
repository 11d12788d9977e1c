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

/** A size in bytes: exact below 1 KB, then KB, MB with one decimal (1 KB = 1,000 bytes, as results are read). */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '–';
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A whole count (tokens, calls) with thousands separators. */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  return n.toLocaleString('en-US');
}
