// What the collector reuses to treat a foreign tool span as this package treats its own calls: the same keyed
// hash over the same canonical JSON, the same input shape, the same redaction and secret rules. One definition,
// imported by both.
export { type Fingerprint, fingerprint } from './fingerprint.js';
export { createHasher, type Hasher } from './hashing.js';
export { mcpOutputFacts, outputFacts } from './output-facts.js';
export { mcpOutputHash, mcpResultView, outputHash } from './output-hash.js';
export { approxTokens, measureJson, type OutputSize } from './output-size.js';
export {
  type CaptureOptions,
  captureOptionsSchema,
  createRedactor,
  type Redactor,
  redactString,
} from './redact.js';
export { REDACTED, scrubSecrets } from './scrub.js';
export { isSecretAttributeName, isSecretKey, keptUnderSecretKey } from './secret-keys.js';
export { maskSecrets } from './secret-values.js';
