// Secrets out of data that is kept as it is otherwise (docs/redaction.md): the collector runs this over every
// attribute of every span it stores, whoever produced it. Same rules as the payload redactor (secret-keys.ts,
// secret-values.ts), nothing cut or capped, and a value without a secret comes back as the same reference,
// so a string of JSON is re-serialized only when something in it was masked.
import { isSecretKey, keptUnderSecretKey } from './secret-keys.js';
import { luhnValid, maskOf, maskSecrets } from './secret-values.js';
import { setOwn } from './set-own.js';

/** What a value under a secret key becomes. */
export const REDACTED = '[REDACTED]';

const MAX_DEPTH = 32;

/** The value of a string that is a JSON object or array (`"{\"password\":…}"`), else undefined. */
export function parseJsonText(text: string): unknown {
  const first = text.charCodeAt(0);
  // `{` or `[`, ending in `}` or `]`: the only strings worth a parse.
  if (first !== 123 && first !== 91) return undefined;
  const last = text.charCodeAt(text.length - 1);
  if (last !== 125 && last !== 93) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The keys of a JSON Schema object whose children are field names, not values (`properties: { password: … }`
 * describes a password field, it holds none): schemas in contracts and tool definitions keep their fields.
 */
export function schemaNameKeys(node: object): ReadonlySet<string> | undefined {
  const properties: unknown = Reflect.get(node, 'properties');
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    return undefined;
  const type: unknown = Reflect.get(node, 'type');
  const schemaLike =
    type === 'object' ||
    (Array.isArray(type) && type.includes('object')) ||
    Array.isArray(Reflect.get(node, 'required')) ||
    typeof Reflect.get(node, '$schema') === 'string';
  return schemaLike ? SCHEMA_NAME_KEYS : undefined;
}
const SCHEMA_NAME_KEYS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
]);

/** An integer that is a card number (Luhn) is masked wherever it stands. */
export function maskCardNumber(value: number): number | string {
  // Thirteen digits at least: most numbers are told apart by their size alone.
  if ((value < 1e12 && value > -1e12) || !Number.isInteger(value)) return value;
  const digits = Math.abs(value).toString();
  return luhnValid(digits) ? maskOf('card') : value;
}

/** `value` with its secrets masked; the same reference when it holds none. */
export function scrubSecrets(value: unknown): unknown {
  return scrub(value, false, 0);
}

function scrub(value: unknown, namesOnly: boolean, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value, depth);
  if (typeof value === 'number') return Number.isInteger(value) ? maskCardNumber(value) : value;
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = scrub(item, false, depth + 1);
      if (next !== item) {
        out ??= [...value];
        out[i] = next;
      }
    }
    return out ?? value;
  }
  const names = schemaNameKeys(value);
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const safeKey = maskSecrets(key);
    const next =
      !namesOnly && isSecretKey(key) && !keptUnderSecretKey(key, item)
        ? REDACTED
        : scrub(item, names?.has(key) ?? false, depth + 1);
    if (next === item && safeKey === key) continue;
    out ??= { ...value };
    if (safeKey !== key) delete out[key];
    setOwn(out, safeKey, next);
  }
  return out ?? value;
}

function scrubText(text: string, depth: number): string {
  const json = depth < MAX_DEPTH ? parseJsonText(text) : undefined;
  if (json === undefined) return maskSecrets(text);
  const next = scrub(json, false, depth + 1);
  return next === json ? text : JSON.stringify(next);
}
