// The log buckets every histogram of the collector counts in (latency in µs, result bytes and tokens): 5 % wide
// from 1 unit, so bucket i holds values in [1.05^i, 1.05^(i+1)) and bucket 0 holds everything up to 1.05. One
// definition for the rollups, the percentiles and the dashboard's bars (through `@toolscope/collector/schemas`).

/** How much wider each bucket is than the one before. */
export const LOG_BUCKET_BASE = 1.05;
const LN_BASE = Math.log(LOG_BUCKET_BASE);

/** The bucket of a value in units (µs, bytes, tokens): 0 holds 0 and 1. */
export function logBucketOf(units: number): number {
  return units <= 1 ? 0 : Math.floor(Math.log(units) / LN_BASE);
}

/** A bucket's bounds in units (bucket 0 from 0). */
export function logBucketBounds(bucket: number): { from: number; to: number } {
  return {
    from: bucket === 0 ? 0 : LOG_BUCKET_BASE ** bucket,
    to: LOG_BUCKET_BASE ** (bucket + 1),
  };
}

/** A bucket's geometric middle, in units: what a percentile that falls in it reads as. */
export function logBucketMiddle(bucket: number): number {
  return LOG_BUCKET_BASE ** (bucket + 0.5);
}

/** The bucket whose upper bound is `to` units (the inverse of logBucketBounds(b).to, within rounding). */
export function logBucketOfUpperBound(to: number): number {
  return Math.round(Math.log(to) / LN_BASE) - 1;
}
