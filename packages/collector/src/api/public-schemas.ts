// The JSON API's response schemas without any server code (subpath `@toolscope/collector/schemas`), so the
// dashboard and other clients can validate responses in a browser.
export * from '../detectors/flag.js';
export { clientPairKeys, serverPairKeys } from '../storage/pairing.js';
export * from './format.js';
export * from './schemas.js';
