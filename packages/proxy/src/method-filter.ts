// Which client lines the observer parses: those whose bytes can spell a method it watches. Most lines are
// decided by a byte search for the plain spelling; a method spelled with JSON escapes (`"tools\/call"`,
// `"\u0074ools/call"`) is valid JSON that a server executes, so a line with an escape that can stand for an ASCII
// character of a method name (`\/`, or `\u00` and a digit 0-7) is parsed as well. Ordinary escapes (`\n`, `\"`,
// `\\`, `\u00e9`, `\u4e2d`) leave a line on the fast path.

// Every method the observer reads from a client: `tools/…`, `initialize`, `server/discover`, and a task's
// `tasks/get` and `tasks/result` (the polls of a call, logical-calls.ts).
const WATCHED = ['"tools/', '"initialize"', '"server/discover"', '"tasks/'];

const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const U = 0x75;
const ZERO = 0x30;
const SEVEN = 0x37;

/** Whether the line contains an escape that can stand for a character of an ASCII method name. */
export function hasAsciiEscape(line: Buffer): boolean {
  let i = line.indexOf(BACKSLASH);
  while (i !== -1 && i + 1 < line.length) {
    const next = line[i + 1];
    if (next === SLASH) return true;
    if (next === U && line[i + 2] === ZERO && line[i + 3] === ZERO) {
      const third = line[i + 4] ?? 0;
      if (third >= ZERO && third <= SEVEN) return true;
    }
    // The escaped character is skipped: `\\u0074` is a backslash and the text `u0074`.
    i = line.indexOf(BACKSLASH, i + 2);
  }
  return false;
}

/** Whether a client line may hold a request the observer watches: only those are parsed. */
export function mayBeWatched(line: Buffer): boolean {
  for (const w of WATCHED) if (line.includes(w)) return true;
  return hasAsciiEscape(line);
}
