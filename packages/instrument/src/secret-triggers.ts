// Which secret rules a text can hold, found in one pass over its characters before any regular expression runs
// (docs/redaction.md): most captured strings (names, ids, hashes, prose) hold none, and a pass over the
// characters costs a fraction of what scanning for sixty formats at every position does.
import { SECRET_KEY_HINTS } from './secret-keys.js';

/** Groups of rules, by what a text must contain for any rule of the group to match. */
export const TRIGGER = {
  /** An `@`: e-mail addresses, credentials in URLs. */
  at: 1,
  /** A `:` or `=` after a name with a hint word (`password=`, `"api_key":`). */
  assign: 2,
  /** Five dashes: a PEM block. */
  begin: 4,
  /** Thirteen digits or more, single spaces or dashes between them: a card number. */
  digits: 8,
  /** The word Bearer, Basic, Digest or Token. */
  words: 16,
  /** A run of 14 token characters or more that is not lower-case hex (a hash, a UUID): a provider key. */
  run: 32,
} as const;

const RUN = 1;
const HEX = 2;
/** A digit or a dash: what a card number's run is made of. */
const NUMERIC = 4;
const NAME = 8;
/** `-`, `:`, `=`: characters of a run that something else also watches. */
const MARK = 16;
const DIGIT_SHIFT = 5;
const DIGIT = 1 << DIGIT_SHIFT;
/**
 * Per UTF-16 code (64 KiB, so the loop needs no range check): part of a token run, lower-case hex (or a dash), a
 * digit or dash, part of a key name, watched, a digit.
 */
const CLASS = new Uint8Array(65536);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  CLASS[c] =
    (/[A-Za-z0-9_+/=~.:-]/.test(ch) ? RUN : 0) |
    (/[0-9a-f-]/.test(ch) ? HEX : 0) |
    (/[0-9-]/.test(ch) ? NUMERIC : 0) |
    (/[A-Za-z0-9_.-]/.test(ch) ? NAME : 0) |
    (/[-:=]/.test(ch) ? MARK : 0) |
    (/[0-9]/.test(ch) ? DIGIT : 0);
}
/**
 * The class of a code; 0 past the end of the text (charCodeAt gives NaN there, and NaN & 0xffff is 0, whose class
 * is 0). Always an integer index into the table: `CLASS[code] ?? 0` read NaN as a property name, which kept the
 * function from being inlined into the scan (0.35 s of the main thread's 14 s in a bench:ingest profile,
 * decision 0053).
 */
const classOf = (code: number): number => CLASS[code & 0xffff] as number;
const MIN_RUN = 14;
const AUTH_WORDS = new Set(['bearer', 'basic', 'digest', 'token']);

/** A name that holds a hint word (secret-keys.ts), read from where it starts; it cannot run past its end. */
const HINT_IN_NAME = new RegExp(`[A-Za-z0-9_.-]*?(?:${SECRET_KEY_HINTS.join('|')})`, 'iy');

/** Whether the name before a `:` or `=` at `at` holds a hint word. */
function hintBefore(text: string, at: number): boolean {
  let end = at;
  let code = text.charCodeAt(end - 1);
  while (end > 0 && at - end < 3 && (code === 32 || code === 9)) code = text.charCodeAt(--end - 1);
  // A closing quote, maybe escaped (`\"password\":`).
  if (end > 0 && (code === 34 || code === 39)) code = text.charCodeAt(--end - 1);
  if (end > 0 && code === 92) code = text.charCodeAt(--end - 1);
  let start = end;
  while (start > 0 && end - start < 64 && classOf(text.charCodeAt(start - 1)) & NAME) start--;
  if (end - start < 2) return false;
  HINT_IN_NAME.lastIndex = start;
  return HINT_IN_NAME.test(text) && HINT_IN_NAME.lastIndex <= end;
}

/**
 * Where triggersOf leaves a text's long non-hex runs: start, end pairs in `bounds[0 .. count)`. One is reused
 * from text to text by setting `count` to 0: an array emptied by `length = 0` gives up its backing store, and
 * the next run found made another, for most spans the collector scrubs.
 */
export type Runs = { bounds: number[]; count: number };

/** The rule groups `text` can hold; its long non-hex runs are added to `runs`. */
export function triggersOf(text: string, runs: Runs): number {
  let groups = 0;
  // Digits of a card-like sequence: runs of digits and dashes, single spaces between them.
  let cardDigits = 0;
  let afterNumber = false;
  const n = text.length;
  let i = 0;
  while (i < n) {
    let code = text.charCodeAt(i);
    let cls = classOf(code);
    if (!(cls & RUN)) {
      if (code === 64) groups |= TRIGGER.at;
      if (!(code === 32 && afterNumber)) cardDigits = 0;
      afterNumber = false;
      i++;
      continue;
    }
    // A run of token characters, read to its end: what all its characters are, and how many digits.
    const start = i;
    let all = cls;
    let digits = 0;
    let dashes = 0;
    do {
      all &= cls;
      digits += (cls & DIGIT) >> DIGIT_SHIFT;
      if (cls & MARK) {
        dashes = code === 45 ? dashes + 1 : 0;
        if (dashes === 5) groups |= TRIGGER.begin;
        if (code !== 45 && !(groups & TRIGGER.assign) && hintBefore(text, i))
          groups |= TRIGGER.assign;
      } else dashes = 0;
      code = text.charCodeAt(++i);
      cls = classOf(code);
    } while (cls & RUN);
    const length = i - start;
    if (length >= MIN_RUN && !(all & HEX)) {
      runs.bounds[runs.count++] = start;
      runs.bounds[runs.count++] = i;
    } else if ((length === 5 || length === 6) && isAuthWord(text, start, i))
      groups |= TRIGGER.words;
    afterNumber = (all & NUMERIC) !== 0 && digits > 0;
    cardDigits = afterNumber ? cardDigits + digits : 0;
    if (cardDigits >= 13) groups |= TRIGGER.digits;
  }
  if (runs.count > 0) groups |= TRIGGER.run;
  return groups;
}

/** Bearer, Basic, Digest or Token, in any case (the first letter is checked before anything is cut out). */
function isAuthWord(text: string, start: number, end: number): boolean {
  const first = text.charCodeAt(start) | 32;
  if (first !== 98 && first !== 100 && first !== 116) return false;
  return AUTH_WORDS.has(text.slice(start, end).toLowerCase());
}

/**
 * What a run of token characters must hold for a rule of the run group to match in it: one of its literal
 * prefixes at a word boundary, a literal marker anywhere, or that many base64 characters in a row.
 */
export type RunFilter = { prefixes?: readonly string[]; marker?: string; base64?: number };

const WORD = /\w/;
const BASE64 = /[A-Za-z0-9+/]/;
const isWord = (code: number) => code < 128 && WORD.test(String.fromCharCode(code));
const WORD_CHAR = new Uint8Array(128);
const BASE64_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  WORD_CHAR[c] = isWord(c) ? 1 : 0;
  BASE64_CHAR[c] = BASE64.test(String.fromCharCode(c)) ? 1 : 0;
}

/**
 * A test of `text[start, end)` that says whether any of `filters` can match there: cheaper than the run
 * group's expression, which then runs only on the runs that pass (a name, a hash or a path rarely does).
 */
export function runFilterOf(
  filters: readonly RunFilter[],
): (text: string, start: number, end: number) => boolean {
  const pairs = new Set<number>();
  const markers: string[] = [];
  let base64 = Number.POSITIVE_INFINITY;
  for (const f of filters) {
    const prefixes = f.prefixes ?? [];
    for (const p of prefixes) pairs.add((p.charCodeAt(0) << 8) | p.charCodeAt(1));
    if (f.marker) markers.push(f.marker);
    if (f.base64) base64 = Math.min(base64, f.base64);
    if (prefixes.length === 0 && !f.marker && !f.base64)
      throw new Error('a rule of the run group must say what it needs');
  }
  return (text, start, end) => {
    let segment = 0;
    for (let i = start; i < end; i++) {
      const code = text.charCodeAt(i);
      const previous = i === start ? 32 : text.charCodeAt(i - 1);
      if (
        !(previous < 128 && WORD_CHAR[previous]) &&
        pairs.has((code << 8) | text.charCodeAt(i + 1))
      )
        return true;
      segment = code < 128 && BASE64_CHAR[code] ? segment + 1 : 0;
      if (segment >= base64) return true;
    }
    for (const marker of markers) {
      const at = text.indexOf(marker, start);
      if (at >= 0 && at + marker.length <= end) return true;
    }
    return false;
  };
}
