// Redaction of captured payloads (DESIGN.md §3): deny-listed keys, secret-looking values and sensitive schema
// fields are masked, strings truncated, the whole payload bounded. Only used when content capture is on.
import { z } from 'zod';
import type { SensitiveNode } from './sensitive.js';
import { setOwn } from './set-own.js';

export const captureOptionsSchema = z.object({
  /** Strings longer than this are cut (after redaction). */
  maxStringLength: z.number().int().min(8).max(1_000_000).default(256),
  /** Upper bound of the serialized payload attribute, in characters. */
  maxLength: z.number().int().min(64).max(10_000_000).default(4096),
  /** Extra key names (matched case-insensitively, ignoring `-` and `_`) to mask. */
  denyKeys: z.array(z.string().min(1)).default([]),
});
export type CaptureOptions = z.input<typeof captureOptionsSchema>;
type ResolvedCaptureOptions = z.output<typeof captureOptionsSchema>;

export const REDACTED = '[REDACTED]';

const DENY_TOKENS = new Set([
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'token',
  'authorization',
  'auth',
  'cookie',
  'session',
  'ssn',
  'card',
  'cvv',
  'cvc',
  'pin',
  'credential',
  'credentials',
  'otp',
  'jwt',
  'bearer',
  'signature',
  'iban',
]);
const DENY_COMPOUNDS = [
  'apikey',
  'privatekey',
  'secretkey',
  'accesskey',
  'clientsecret',
  'setcookie',
];

const VALUE_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, '[REDACTED:jwt]'],
  [/\b(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '[REDACTED:credential]'],
  [
    /\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abpr]-[A-Za-z0-9-]{10,}/g,
    '[REDACTED:api_key]',
  ],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g, '[REDACTED:email]'],
];
const CARD_CANDIDATE = /\b\d(?:[ -]?\d){12,18}\b/g;

const MAX_DEPTH = 16;
const MAX_ITEMS = 100;
const MAX_KEYS = 200;

/** Whether a key name is on the deny-list (`apiKey`, `X-Api-Key`, `access_token`, `Authorization`, …). */
export function isDeniedKey(key: string, extra: ReadonlySet<string> = new Set()): boolean {
  const normalized = key.toLowerCase().replace(/[-_\s.]/g, '');
  if (extra.has(normalized)) return true;
  for (const compound of DENY_COMPOUNDS) if (normalized.includes(compound)) return true;
  const tokens = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return tokens.some((token) => DENY_TOKENS.has(token));
}

/** Passes the Luhn checksum (card numbers). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Masks secrets inside one string and truncates it. */
export function redactString(text: string, maxStringLength: number): string {
  // Scan a bounded window: redacting a megabyte string costs time, and all but the head is cut anyway.
  let out = text.length > maxStringLength * 4 ? text.slice(0, maxStringLength * 4) : text;
  for (const [pattern, mask] of VALUE_PATTERNS) out = out.replace(pattern, mask);
  out = out.replace(CARD_CANDIDATE, (match) => {
    const digits = match.replace(/[ -]/g, '');
    return digits.length >= 13 && digits.length <= 19 && luhnValid(digits)
      ? '[REDACTED:card]'
      : match;
  });
  if (out.length > maxStringLength || text.length > maxStringLength * 4) {
    return `${out.slice(0, maxStringLength)}…[truncated ${text.length - maxStringLength} chars]`;
  }
  return out;
}

export type Redactor = (value: unknown) => string;

/** Builds a redactor for one tool's payloads; `tree` marks the schema's sensitive fields. */
export function createRedactor(options: CaptureOptions, tree: SensitiveNode | undefined): Redactor {
  const resolved: ResolvedCaptureOptions = captureOptionsSchema.parse(options);
  const extra = new Set(resolved.denyKeys.map((k) => k.toLowerCase().replace(/[-_\s.]/g, '')));
  return (value) => {
    const text = JSON.stringify(redactValue(value, tree, resolved, extra, 0, new Set())) ?? 'null';
    if (text.length <= resolved.maxLength) return text;
    // Escaping inside the preview lengthens it: shrink until the whole attribute fits.
    let keep = resolved.maxLength - 64;
    for (;;) {
      const out = JSON.stringify({
        truncated: true,
        length: text.length,
        preview: text.slice(0, keep),
      });
      if (out.length <= resolved.maxLength || keep === 0) return out;
      keep = Math.max(0, keep - (out.length - resolved.maxLength));
    }
  };
}

function redactValue(
  value: unknown,
  node: SensitiveNode | undefined,
  opts: ResolvedCaptureOptions,
  extra: ReadonlySet<string>,
  depth: number,
  seen: Set<object>,
): unknown {
  if (node?.sensitive) return REDACTED;
  switch (typeof value) {
    case 'string':
      return redactString(value, opts.maxStringLength);
    case 'number': {
      if (!Number.isInteger(value)) return value;
      const digits = Math.abs(value).toString();
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits)
        ? '[REDACTED:card]'
        : value;
    }
    case 'boolean':
      return value;
    case 'bigint':
      return redactString(value.toString(), opts.maxStringLength);
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH) return '[depth]';
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const out: unknown[] = value
        .slice(0, MAX_ITEMS)
        .map((item) => redactValue(item, node?.items, opts, extra, depth + 1, seen) ?? null);
      if (value.length > MAX_ITEMS) out.push(`…[${value.length - MAX_ITEMS} more items]`);
      return out;
    }
    const out: Record<string, unknown> = {};
    let count = 0;
    for (const key of Object.keys(value)) {
      if (count++ >= MAX_KEYS) {
        out['…'] = 'more keys';
        break;
      }
      const safeKey = redactString(key, opts.maxStringLength);
      if (isDeniedKey(key, extra)) {
        setOwn(out, safeKey, REDACTED);
        continue;
      }
      const child = node?.props.get(key) ?? node?.rest;
      let raw: unknown;
      try {
        raw = Reflect.get(value, key);
      } catch {
        raw = '[unreadable]';
      }
      setOwn(out, safeKey, redactValue(raw, child, opts, extra, depth + 1, seen));
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
