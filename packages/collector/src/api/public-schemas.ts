// The JSON API's response schemas without any server code (subpath `@toolscope/collector/schemas`), so the
// dashboard and other clients can validate responses in a browser.

export { LOG_BUCKET_BASE, logBucketOfUpperBound } from '../aggregation/log-buckets.js';
export { clientPairKeys, serverPairKeys } from '../calls/pairing.js';
export * from '../detectors/flag.js';
export * from '../format.js';
export * from './recovery-schemas.js';
export * from './schemas.js';
