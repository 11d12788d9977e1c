// Which key names hold secrets (docs/redaction.md): the one list behind the payload redactor's key masking, the
// `name=value` rule of free text (secret-values.ts) and the collector's attribute names, in the spellings
// people use (snake, kebab, camel, glued, plural). Ordinary keys that merely contain such a word (`passenger`,
// `tokenizer`, `sessions_count`) are not secret: a key is split into words and whole words are compared.

/** Words that make a key secret wherever they stand in it (`db_password`, `X-Auth-Token`, `clientSecret`). */
const SECRET_WORDS = new Set([
  'pass',
  'passwd',
  'password',
  'passwords',
  'passphrase',
  'passcode',
  'pw',
  'pwd',
  'secret',
  'secrets',
  'token',
  'tokens',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'creds',
  'cookie',
  'cookies',
  'session',
  'dsn',
  'otp',
  'totp',
  'jwt',
  'bearer',
  'signature',
  'sig',
  // Personal data the design masks by key (docs/redaction.md).
  'ssn',
  'card',
  'cvv',
  'cvc',
  'pin',
  'iban',
]);

/** Glued compounds found anywhere in the key once separators are gone (`x-api-key`, `AccountKey`, `connStr`). */
const SECRET_COMPOUNDS = [
  'apikey',
  'privatekey',
  'secretkey',
  'accesskey',
  'accountkey',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'authkey',
  'sessionkey',
  'clientsecret',
  'setcookie',
  'connectionstring',
  'connstring',
  'connstr',
  'sessionid',
];

/** Glued endings of one lower-case word (`userpassword`, `apitoken`, `dbsecret`). */
const SECRET_ENDINGS = ['password', 'passwd', 'secret', 'token', 'apikey'];

/** Words that say a number under the key measures something rather than being the secret (`token_count`). */
const MEASURE_WORDS = new Set([
  'count',
  'counts',
  'total',
  'num',
  'length',
  'len',
  'size',
  'max',
  'min',
  'limit',
  'ttl',
  'timeout',
  'ms',
  'seconds',
  'expires',
  'expiry',
  'age',
  'attempts',
  'version',
  'index',
]);

/** Words counted, not kept secret: `input_tokens: 150` is usage, `token: "abc…"` a credential. */
const COUNTED = new Set(['token', 'tokens']);

/** The prefix of a key's words every secret key contains, as regex source (for the free-text rule). */
export const SECRET_KEY_HINTS = [
  'pass',
  'pw',
  'secret',
  'token',
  'key',
  'auth',
  'cred',
  'cookie',
  'session',
  'dsn',
  'sig',
  'otp',
  'jwt',
  'conn',
  'card',
  'ssn',
  'cvv',
  'cvc',
  'pin',
  'iban',
] as const;

/** A key folded for the compound test: lower case, no separators. */
export const foldKey = (key: string): string => key.toLowerCase().replace(/[-_\s.]/g, '');

function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
}

/**
 * Answers per key already read: keys repeat (the same payload shapes, the same attribute names), and reading
 * one costs a few string passes. Bounded: emptied when full.
 */
class KeyCache {
  readonly #answers = new Map<string, boolean>();
  constructor(private readonly limit: number) {}
  get(key: string, read: (key: string) => boolean): boolean {
    let answer = this.#answers.get(key);
    if (answer === undefined) {
      answer = read(key);
      if (this.#answers.size >= this.limit) this.#answers.clear();
      this.#answers.set(key, answer);
    }
    return answer;
  }
}
const secretKeys = new KeyCache(4096);
const secretAttributeNames = new KeyCache(4096);

/**
 * Whether values under `key` are secret (`password`, `X-Api-Key`, `access_token`, `connection_string`,
 * `userPassword`, …). `extra` holds folded names (foldKey) the caller adds.
 */
export function isSecretKey(key: string, extra?: ReadonlySet<string>): boolean {
  if (extra !== undefined && extra.size > 0 && extra.has(foldKey(key))) return true;
  return secretKeys.get(key, readSecretKey);
}

function readSecretKey(key: string): boolean {
  const folded = foldKey(key);
  for (const compound of SECRET_COMPOUNDS) if (folded.includes(compound)) return true;
  for (const word of wordsOf(key)) {
    if (SECRET_WORDS.has(word)) return true;
    for (const ending of SECRET_ENDINGS)
      if (word.length > ending.length && word.endsWith(ending)) return true;
  }
  return false;
}

/**
 * Whether a number under a secret `key` stays: the key counts tokens (`input_tokens`) or says it measures
 * something (`password_length`, `session_timeout_ms`). Any other number under a secret key is masked (a PIN).
 */
export function keepsNumber(key: string): boolean {
  return measures.get(key, readMeasure);
}
const measures = new KeyCache(4096);
const readMeasure = (key: string) =>
  wordsOf(key).some((word) => MEASURE_WORDS.has(word) || COUNTED.has(word));

/** Whether `value` stays although its key is secret: no boolean or null is a secret, nor a measure (keepsNumber). */
export function keptUnderSecretKey(key: string, value: unknown): boolean {
  if (value === null || typeof value === 'boolean') return true;
  return typeof value === 'number' && keepsNumber(key);
}

/**
 * Whether a span attribute's name marks its value secret: its last segment is a secret key
 * (`http.request.header.authorization`, `db.connection_string`), except the session ids telemetry keys calls by
 * (`mcp.session.id`, `ai.telemetry.metadata.sessionId`, `traceloop.association.properties.session_id`).
 */
export function isSecretAttributeName(name: string): boolean {
  return secretAttributeNames.get(name, readSecretAttributeName);
}

function readSecretAttributeName(name: string): boolean {
  const last = name.slice(name.lastIndexOf('.') + 1);
  if (!isSecretKey(last)) return false;
  const words = wordsOf(last);
  return !(words.includes('session') && words.includes('id') && words.length === 2);
}
