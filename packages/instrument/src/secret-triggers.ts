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

/** What one pass found: the groups to run, and where the long runs are (start, end pairs). */
export type Triggers = { groups: number; runs: number[] };

const RUN = 1;
const HEX = 2;
const DIGIT = 4;
const NAME = 8;
/** Per ASCII code: part of a token run, lower-case hex (or a dash), a digit, part of a key name. */
const CLASS = Uint8Array.from({ length: 128 }, (_, c) => {
  const ch = String.fromCharCode(c);
  return (
    (/[A-Za-z0-9_+/=~.:-]/.test(ch) ? RUN : 0) |
    (/[0-9a-f-]/.test(ch) ? HEX : 0) |
    (/[0-9]/.test(ch) ? DIGIT : 0) |
    (/[A-Za-z0-9_.-]/.test(ch) ? NAME : 0)
  );
});
const classOf = (code: number): number => (code < 128 ? (CLASS[code] ?? 0) : 0);
const MIN_RUN = 14;
const AUTH_WORDS = new Set(['bearer', 'basic', 'digest', 'token']);

/** Whether the name before a `:` or `=` at `at` holds a hint word (secret-keys.ts). */
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
  const name = text.slice(start, end).toLowerCase();
  for (const hint of SECRET_KEY_HINTS) if (name.includes(hint)) return true;
  return false;
}

/** The rule groups `text` can hold, and its long non-hex runs. */
export function triggersOf(text: string): Triggers {
  let groups = 0;
  const runs: number[] = [];
  let runStart = -1;
  let runHex = true;
  let dashes = 0;
  let cardDigits = 0;
  let lastWasDigit = false;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const code = i < n ? text.charCodeAt(i) : 32;
    const cls = classOf(code);
    if (cls & RUN) {
      if (runStart < 0) {
        runStart = i;
        runHex = true;
      }
      if (!(cls & HEX)) runHex = false;
    } else if (runStart >= 0) {
      const length = i - runStart;
      if (length >= MIN_RUN && !runHex) runs.push(runStart, i);
      else if (length >= 5 && length <= 6 && AUTH_WORDS.has(text.slice(runStart, i).toLowerCase()))
        groups |= TRIGGER.words;
      runStart = -1;
    }
    if (code === 64) groups |= TRIGGER.at;
    dashes = code === 45 ? dashes + 1 : 0;
    if (dashes === 5) groups |= TRIGGER.begin;
    if ((code === 58 || code === 61) && !(groups & TRIGGER.assign) && hintBefore(text, i))
      groups |= TRIGGER.assign;
    if (cls & DIGIT) {
      cardDigits++;
      lastWasDigit = true;
      if (cardDigits === 13) groups |= TRIGGER.digits;
    } else if ((code === 32 || code === 45) && lastWasDigit) {
      lastWasDigit = false;
    } else {
      cardDigits = 0;
      lastWasDigit = false;
    }
  }
  if (runs.length > 0) groups |= TRIGGER.run;
  return { groups, runs };
}
