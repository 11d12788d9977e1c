// The secret formats masked inside any text (docs/redaction.md): one rule each, after the rule sets of gitleaks
// (config/gitleaks.toml) and trufflehog (pkg/detectors), shared by the instrument's payloads and exception
// messages, the proxy and the collector. A pass over the characters says which groups of rules can match
// (secret-triggers.ts); those run as one regular expression, the provider formats only over the long runs.
import { PROVIDER_FORMATS, sourceOf } from './secret-formats.js';
import { isSecretKey, keepsNumber, SECRET_KEY_HINTS } from './secret-keys.js';
import { type RunFilter, type Runs, runFilterOf, TRIGGER, triggersOf } from './secret-triggers.js';

/** How a masked value reads: `[REDACTED:<kind>]`. */
export const maskOf = (kind: string): string => `[REDACTED:${kind}]`;

/** One secret format. `source` has no capturing group; `mask` decides on a match (undefined keeps it). */
export type SecretRule = {
  /** Stable id, named after the scanners' rule where one exists. */
  id: string;
  source: string;
  /** What a text needs for the rule to match (secret-triggers.ts). */
  group: number;
  /** Rules of the run group: what a run needs for the rule to match there (secret-triggers.ts). */
  needs?: RunFilter;
  /** What the match becomes; by default `[REDACTED:api_key]`. */
  mask?: (match: string, offset: number, text: string) => string;
};

const apiKey = maskOf('api_key');
const hasDigit = /\d/;
const mixedBase64 = /(?=.*[A-Z])(?=.*[a-z])(?=.*\d)/;

/** Case-insensitive source for a lower-case word without the `i` flag (the other rules are case-sensitive). */
const anyCase = (word: string) =>
  [...word].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');

/** The separator of a `name=value` pair in free text, in the syntaxes of env files, JSON, YAML and URLs. */
const ASSIGN = String.raw`\\?["']?[ \t]{0,3}(?:=>|:=|=|:)[ \t]{0,3}`;
const ASSIGNED_VALUE = String.raw`(?:"[^"\n]{1,4096}"|'[^'\n]{1,4096}'|(?:[Bb]earer|[Bb]asic|[Tt]oken|[Dd]igest)[ \t]+[^\s"'&;,]{1,1024}|\d(?:[ -]?\d){12,18}\b|[^\s"'&;,<>]{1,1024})`;
const NAME_CHAR = /[A-Za-z0-9_.-]/;
const NOT_SECRET_VALUES = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null',
  'undefined',
  'true',
  'false',
]);
const ASSIGNMENT_PARTS = new RegExp(`^([A-Za-z0-9_.-]*)(${ASSIGN})([\\s\\S]*)$`);

/**
 * `password=…`, `"api_key": "…"`, `Authorization: Bearer …`, `?access_token=…`, `AccountKey=…;`: the match
 * starts at a hint word (secret-keys.ts), so the whole name is read back from the text before deciding.
 */
function maskAssignment(match: string, offset: number, text: string): string {
  const parts = ASSIGNMENT_PARTS.exec(match);
  if (!parts) return match;
  const [, rest = '', separator = '', value = ''] = parts;
  let start = offset;
  while (start > 0 && NAME_CHAR.test(text.charAt(start - 1))) start--;
  const name = text.slice(start, offset) + rest;
  if (!isSecretKey(name)) return rest + separator + maskSecrets(value);
  if (/^-?\d+(?:\.\d+)?$/.test(value) && keepsNumber(name)) return match;
  // `password:string` in a shape or a schema, `has_token=true`: a type or a boolean, not a secret.
  if (NOT_SECRET_VALUES.has(value)) return match;
  const quote = value.startsWith('"') || value.startsWith("'") ? value.charAt(0) : '';
  return `${rest}${separator}${quote}${maskOf('secret')}${quote}`;
}

function luhnMask(match: string): string {
  const digits = match.replace(/[ -]/g, '');
  return luhnValid(digits) ? maskOf('card') : match;
}

/** Every rule, in the order they are tried at one position of the text (specific before generic). */
export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: 'private-key',
    // A cut key (no END line in what is scanned) is masked to the end of the text.
    source: String.raw`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|$)`,
    group: TRIGGER.begin,
    mask: () => maskOf('private_key'),
  },
  {
    id: 'jwt',
    source: String.raw`\beyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*`,
    group: TRIGGER.run,
    needs: { prefixes: ['eyJ'] },
    mask: () => maskOf('jwt'),
  },
  {
    id: 'url-credentials',
    source: String.raw`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@"'<>]{0,128}:[^\s/?#@"'<>]{1,256}@`,
    group: TRIGGER.at,
    mask: (m) => `${m.slice(0, m.indexOf(':', m.indexOf('//') + 2) + 1)}${maskOf('password')}@`,
  },
  {
    id: 'authorization-header',
    source: String.raw`\b(?:[Bb]earer|[Bb]asic|[Dd]igest)[ \t]+[\w~+/=.-]{8,}`,
    group: TRIGGER.words,
    mask: () => maskOf('credential'),
  },
  ...PROVIDER_FORMATS.map((format) => ({
    id: format.id,
    source: sourceOf(format),
    group: TRIGGER.run,
    needs: { prefixes: format.prefixes },
  })),
  {
    id: 'azure-ad-client-secret',
    source: String.raw`(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])`,
    group: TRIGGER.run,
    needs: { marker: 'Q~' },
  },
  {
    id: 'telegram-bot-api-token',
    source: String.raw`\b\d{8,10}:AA[\w-]{33}\b`,
    group: TRIGGER.run,
    needs: { marker: ':AA' },
  },
  {
    id: 'openai-api-key-legacy',
    // `sk-` and 20+ characters with a digit: OpenAI's older keys and the same style elsewhere (DeepSeek, …).
    source: String.raw`\bsk-[A-Za-z0-9][\w-]{19,}`,
    group: TRIGGER.run,
    needs: { prefixes: ['sk-'] },
    mask: (m) => (hasDigit.test(m) ? apiKey : m),
  },
  {
    id: 'assignment',
    source: `(?:${SECRET_KEY_HINTS.map(anyCase).join('|')})[A-Za-z0-9_.-]{0,48}${ASSIGN}${ASSIGNED_VALUE}`,
    group: TRIGGER.assign,
    mask: maskAssignment,
  },
  {
    id: 'token-word',
    // `token abc123…`: the word and a value with a digit (plain words after "token" stay).
    source: String.raw`\b[Tt]oken[ \t]+[\w~+/=.-]{8,}`,
    group: TRIGGER.words,
    mask: (m) => (hasDigit.test(m.slice(6)) ? maskOf('credential') : m),
  },
  {
    id: 'aws-secret-access-key',
    // 40 characters of base64 with upper, lower case and digits, standing alone (trufflehog's AWS secret).
    source: '(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])',
    group: TRIGGER.run,
    needs: { base64: 40 },
    mask: (m) => (mixedBase64.test(m) ? apiKey : m),
  },
  {
    id: 'email',
    source: String.raw`(?<![\w.%+-])[\w.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`,
    group: TRIGGER.at,
    mask: () => maskOf('email'),
  },
  {
    id: 'card',
    source: String.raw`\b\d(?:[ -]?\d){12,18}\b`,
    group: TRIGGER.digits,
    mask: luhnMask,
  },
];

/** A scanner: the rules of some groups as one regular expression, and what a match becomes. */
type Scanner = { pattern: RegExp; replace: (match: string, ...args: unknown[]) => string };

function scannerOf(rules: readonly SecretRule[]): Scanner {
  const pattern = new RegExp(rules.map((r) => `(${r.source})`).join('|'), 'g');
  const count = rules.length;
  return {
    pattern,
    replace: (match, ...args) => {
      const offset = args[count] as number;
      const text = args[count + 1] as string;
      for (let i = 0; i < count; i++) {
        if (args[i] === undefined) continue;
        const mask = rules[i]?.mask;
        return mask ? mask(match, offset, text) : apiKey;
      }
      return match;
    },
  };
}

const runRules = SECRET_RULES.filter((r) => r.group === TRIGGER.run);
const runScanner = scannerOf(runRules);
const runMayMatch = runFilterOf(runRules.map((r) => r.needs ?? {}));
/** Scanners of the other groups, per combination found in a text (at most 32, made on first use). */
const scanners = new Map<number, Scanner>();
function textScanner(groups: number): Scanner {
  let scanner = scanners.get(groups);
  if (!scanner) {
    scanner = scannerOf(SECRET_RULES.filter((r) => (r.group & groups) !== 0));
    scanners.set(groups, scanner);
  }
  return scanner;
}

/** Scratch for the runs of the text being read: read whole before any mask can call maskSecrets again. */
const runs: Runs = { bounds: [], count: 0 };
/** The scratch is kept up to this many bounds; a text with more runs leaves a larger one that is dropped. */
const KEEP_RUN_BOUNDS = 1024;

/** `text` with every secret the rules know masked; the same string when it holds none. */
export function maskSecrets(text: string): string {
  runs.count = 0;
  if (runs.bounds.length > KEEP_RUN_BOUNDS) runs.bounds = [];
  const groups = triggersOf(text, runs);
  if (groups === 0) return text;
  let out = text;
  if (runs.count > 0) {
    const { pattern, replace } = runScanner;
    let spliced = '';
    let from = 0;
    for (let i = 0; i < runs.count; i += 2) {
      const start = runs.bounds[i] ?? 0;
      const end = runs.bounds[i + 1] ?? 0;
      if (!runMayMatch(text, start, end)) continue;
      const run = text.slice(start, end);
      const masked = run.replace(pattern, replace);
      if (masked === run) continue;
      spliced += text.slice(from, start) + masked;
      from = end;
    }
    if (from > 0) out = spliced + text.slice(from);
  }
  const rest = groups & ~TRIGGER.run;
  if (rest === 0) return out;
  const { pattern, replace } = textScanner(rest);
  return out.replace(pattern, replace);
}

/** Passes the Luhn checksum (card numbers). */
export function luhnValid(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
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
