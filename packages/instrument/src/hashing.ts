// Keyed hashes of inputs and idempotency keys (HMAC-SHA-256, first 16 hex): equal values give equal hashes,
// and nobody without the key can test guesses against them.
import { createHash, randomBytes } from 'node:crypto';
import { diag } from '@opentelemetry/api';
import { createHmacSha256, type KeyedHash } from './hmac-sha256.js';

const HASH_HEX_CHARS = 16;

/** Hashes text (or UTF-8 bytes, through `.bytes`) with a secret key. */
export type Hasher = KeyedHash;

let processKey: Buffer | undefined;
let warnedRandomKey = false;

/** A hasher keyed with `key`, or with a random per-process key (and a one-time warning) when none is configured. */
export function createHasher(key: string | undefined): Hasher {
  const secret = key === undefined ? randomProcessKey() : Buffer.from(key, 'utf8');
  return createHmacSha256(secret, HASH_HEX_CHARS);
}

const NO_KEY_WARNING =
  '@toolscope/instrument: no hash key configured (TOOLSCOPE_HASH_KEY or the hashKey option); ' +
  'using a random per-process key, so input hashes will not match across processes or replicas, ' +
  'and retry loops whose calls reach different processes are not recognised.';

/**
 * Says once per process, on stderr (a Node warning, so `--no-warnings` silences it) and to the OTel diag
 * logger, that hashes are keyed per process. Called by setupToolscope and by every hasher made without a key.
 */
export function warnNoHashKey(): void {
  if (warnedRandomKey) return;
  warnedRandomKey = true;
  diag.warn(NO_KEY_WARNING);
  process.emitWarning(NO_KEY_WARNING, { code: 'TOOLSCOPE_NO_HASH_KEY' });
}

function randomProcessKey(): Buffer {
  warnNoHashKey();
  processKey ??= randomBytes(32);
  return processKey;
}

/** Unkeyed SHA-256 (hex), for identifiers that never leave the process's own stores. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** First 16 hex of an unkeyed SHA-256: the schema hash of docs/span-contract.md. */
export function shortDigest(text: string): string {
  return digest(text).slice(0, HASH_HEX_CHARS);
}
