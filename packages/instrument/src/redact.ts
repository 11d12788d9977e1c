// Redaction of captured payloads (docs/defining-tools.md, docs/redaction.md): secret keys (secret-keys.ts), secret formats
// (secret-values.ts), strings that are JSON by their keys too, and sensitive schema fields are masked; strings
// truncated, the whole payload bounded. Payloads with content capture on; exception messages always.
import { z } from 'zod';
import { maskCardNumber, parseJsonText, REDACTED, schemaNameKeys } from './scrub.js';
import { foldKey, isSecretKey, keptUnderSecretKey } from './secret-keys.js';
import { maskSecrets } from './secret-values.js';
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

export { REDACTED } from './scrub.js';
export { luhnValid } from './secret-values.js';

const MAX_DEPTH = 16;
const MAX_ITEMS = 100;
const MAX_KEYS = 200;
const NO_EXTRA: ReadonlySet<string> = new Set();

/** Whether a key name is on the deny-list (`apiKey`, `X-Api-Key`, `access_token`, `Authorization`, …). */
export function isDeniedKey(key: string, extra: ReadonlySet<string> = NO_EXTRA): boolean {
  return isSecretKey(key, extra);
}

/** Masks secrets inside one string (a string of JSON by its keys too) and truncates it. */
export function redactString(text: string, maxStringLength: number): string {
  return redactText(text, { maxStringLength, maxLength: 0, denyKeys: [] }, NO_EXTRA, 0);
}

const TOKEN_CHAR = /[\w~+/=.-]/;

/**
 * A cut string ends before its last run of token characters, so a secret cut in half (too short for its rule
 * to know it) is not kept either.
 */
function cutAtSeparator(text: string): string {
  let end = text.length;
  while (end > 0 && TOKEN_CHAR.test(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

/** Strings of JSON up to this length are parsed whole, so their keys are read even where the text is cut. */
const MAX_JSON_TEXT = 1 << 20;

function redactText(
  text: string,
  opts: ResolvedCaptureOptions,
  extra: ReadonlySet<string>,
  depth: number,
): string {
  const max = opts.maxStringLength;
  const json = depth < MAX_DEPTH && text.length <= MAX_JSON_TEXT ? parseJsonText(text) : undefined;
  if (json !== undefined) {
    const out = JSON.stringify(redactValue(json, undefined, opts, extra, depth + 1, new Set()));
    return out.length > max ? `${out.slice(0, max)}…[truncated ${out.length - max} chars]` : out;
  }
  // Scan a bounded window: redacting a megabyte string costs time, and all but the head is cut anyway.
  const cut = text.length > max * 4;
  const out = maskSecrets(cut ? cutAtSeparator(text.slice(0, max * 4)) : text);
  if (out.length > max || cut) {
    return `${out.slice(0, max)}…[truncated ${text.length - max} chars]`;
  }
  return out;
}

export type Redactor = (value: unknown) => string;

/** Builds a redactor for one tool's payloads; `tree` marks the schema's sensitive fields. */
export function createRedactor(options: CaptureOptions, tree: SensitiveNode | undefined): Redactor {
  const resolved: ResolvedCaptureOptions = captureOptionsSchema.parse(options);
  const extra = new Set(resolved.denyKeys.map(foldKey));
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
  namesOnly = false,
): unknown {
  if (node?.sensitive) return REDACTED;
  switch (typeof value) {
    case 'string':
      return redactText(value, opts, extra, depth);
    case 'number':
      return maskCardNumber(value);
    case 'boolean':
      return value;
    case 'bigint':
      return redactText(value.toString(), opts, extra, depth);
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
    const names = schemaNameKeys(value);
    let count = 0;
    for (const key of Object.keys(value)) {
      if (count++ >= MAX_KEYS) {
        out['…'] = 'more keys';
        break;
      }
      const safeKey = redactString(key, opts.maxStringLength);
      let raw: unknown;
      try {
        raw = Reflect.get(value, key);
      } catch {
        raw = '[unreadable]';
      }
      if (!namesOnly && isSecretKey(key, extra) && !keptUnderSecretKey(key, raw)) {
        setOwn(out, safeKey, REDACTED);
        continue;
      }
      const child = node?.props.get(key) ?? node?.rest;
      const namesBelow = names?.has(key) ?? false;
      setOwn(out, safeKey, redactValue(raw, child, opts, extra, depth + 1, seen, namesBelow));
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
