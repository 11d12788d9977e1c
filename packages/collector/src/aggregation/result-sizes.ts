// Result sizes of a tool's calls (what a result costs the model's context), per version: bytes and
// tokens in log buckets 5 % wide (the latency histogram's buckets, histogram.ts, counted in units instead of
// milliseconds), and the exact largest of each. Rollups keep one per minute and hour, so percentiles over any
// window cost the same for 1k or 1M calls; the largest cannot be taken back out, so a paired client call's
// result (the same result its server span measured) stays in the maximum.

import { countOf, type Histogram, mergeInto, quantileBucket, subtractFrom } from './histogram.js';
import { logBucketMiddle, logBucketOf } from './log-buckets.js';

export type SizeAgg = {
  bytes: Histogram;
  tokens: Histogram;
  maxBytes: number;
  maxTokens: number;
};

export function emptySizes(): SizeAgg {
  return { bytes: new Map(), tokens: new Map(), maxBytes: 0, maxTokens: 0 };
}

/** Bucket of a count (bytes or tokens): 0 holds 0 and 1; each next bucket is 5 % wider. */
export const sizeBucket = logBucketOf;

/** Counts one call's result; a call whose span gave no size is not counted. */
export function addSize(into: SizeAgg, bytes: number | null, tokens: number | null): void {
  if (bytes !== null) {
    const b = sizeBucket(bytes);
    into.bytes.set(b, (into.bytes.get(b) ?? 0) + 1);
    if (bytes > into.maxBytes) into.maxBytes = bytes;
  }
  if (tokens !== null) {
    const b = sizeBucket(tokens);
    into.tokens.set(b, (into.tokens.get(b) ?? 0) + 1);
    if (tokens > into.maxTokens) into.maxTokens = tokens;
  }
}

/** A copy of `s` to add to: its histograms copied. */
export function copySizes(s: SizeAgg): SizeAgg {
  return {
    bytes: new Map(s.bytes),
    tokens: new Map(s.tokens),
    maxBytes: s.maxBytes,
    maxTokens: s.maxTokens,
  };
}

export function mergeSizes(into: SizeAgg, from: SizeAgg): void {
  mergeInto(into.bytes, from.bytes);
  mergeInto(into.tokens, from.tokens);
  into.maxBytes = Math.max(into.maxBytes, from.maxBytes);
  into.maxTokens = Math.max(into.maxTokens, from.maxTokens);
}

/** Takes counted calls back out (paired client calls, call-side.ts); the maxima stay (see above). */
export function subtractSizes(into: SizeAgg, from: SizeAgg): void {
  subtractFrom(into.bytes, from.bytes);
  subtractFrom(into.tokens, from.tokens);
}

/** The q-quantile of a size histogram (the bucket's geometric middle, never above the exact maximum). */
function sizeQuantile(h: Histogram, q: number, max: number): number | null {
  const b = quantileBucket(h, q);
  if (b === null) return null;
  return Math.min(max, b === 0 ? 1 : Math.round(logBucketMiddle(b)));
}

/** The public summary of a size aggregate: null percentiles when no call of it carried a size. */
export type ResultSizeStats = {
  /** Calls whose span carried a result size. */
  measured: number;
  bytesP50: number | null;
  bytesP95: number | null;
  bytesMax: number | null;
  tokensP50: number | null;
  tokensP95: number | null;
  tokensMax: number | null;
};

export function sizeStats(s: SizeAgg): ResultSizeStats {
  const measured = countOf(s.bytes);
  const withTokens = countOf(s.tokens) > 0;
  return {
    measured,
    bytesP50: sizeQuantile(s.bytes, 0.5, s.maxBytes),
    bytesP95: sizeQuantile(s.bytes, 0.95, s.maxBytes),
    bytesMax: measured > 0 ? s.maxBytes : null,
    tokensP50: sizeQuantile(s.tokens, 0.5, s.maxTokens),
    tokensP95: sizeQuantile(s.tokens, 0.95, s.maxTokens),
    tokensMax: withTokens ? s.maxTokens : null,
  };
}

/** A version's sizes, with when its first call in the window was (versions are compared in that order). */
export type VersionSizes = SizeAgg & { firstNs: bigint };
export type VersionResultSizes = ResultSizeStats & { version: string | null; firstSeen: string };

/** The sizes of `version` in a per-version map, created at `atNs` or moved back to it. */
export function sizesOf(
  sizes: Map<string, VersionSizes>,
  version: string,
  atNs: bigint,
): VersionSizes {
  let v = sizes.get(version);
  if (!v) {
    v = { ...emptySizes(), firstNs: atNs };
    sizes.set(version, v);
  } else if (atNs < v.firstNs) v.firstNs = atNs;
  return v;
}

/** A tool's result-size percentiles over all its versions, and per version (oldest first). */
export type ResultSizesSummary = {
  resultBytesP50: number | null;
  resultBytesP95: number | null;
  resultBytesMax: number | null;
  resultTokensP50: number | null;
  resultTokensP95: number | null;
  resultTokensMax: number | null;
  resultSizes: VersionResultSizes[];
};

/** The tool's result-size percentiles over all versions, and per version. */
export function resultSizesOf(sizes: Map<string, VersionSizes>): ResultSizesSummary {
  const all = emptySizes();
  const perVersion: VersionResultSizes[] = [];
  // Rollups know a call's minute, not its instant: versions first seen in the same minute go in version order.
  const order = ([xv, x]: [string, VersionSizes], [yv, y]: [string, VersionSizes]) =>
    x.firstNs < y.firstNs ? -1 : x.firstNs > y.firstNs ? 1 : compareVersions(xv, yv);
  for (const [version, v] of [...sizes.entries()].sort(order)) {
    mergeSizes(all, v);
    const stats = sizeStats(v);
    if (stats.measured > 0)
      perVersion.push({
        version: version === '' ? null : version,
        firstSeen: new Date(Number(v.firstNs / 1_000_000n)).toISOString(),
        ...stats,
      });
  }
  const t = sizeStats(all);
  return {
    resultBytesP50: t.bytesP50,
    resultBytesP95: t.bytesP95,
    resultBytesMax: t.bytesMax,
    resultTokensP50: t.tokensP50,
    resultTokensP95: t.tokensP95,
    resultTokensMax: t.tokensMax,
    resultSizes: perVersion,
  };
}

/** Version strings in their natural order ("2" before "10"). */
function compareVersions(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
