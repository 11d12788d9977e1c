// The MCP SDK's own validation messages read back into issue paths: a server we did not instrument says which
// arguments it refused only in text. SDK 1.x writes `MCP error -32602: Input validation error: Invalid arguments
// for tool T: <message> at <path>` (one line per issue; older releases a zod 3 issue list as JSON, some as a
// -32602 JSON-RPC error), SDK 2.x `Input validation error: Invalid arguments for tool T: <path>: <message>, …`
// (an `isError` result in both eras). Paths and codes are kept, and a message only where it is Zod's own wording
// (types, the schema's bounds and options, key names): a server's custom message could quote the input.
import type { ValidationIssue } from '../contract.js';
import { ROOT_PATH } from '../input-shape.js';
import { ERROR_CODES, MAX_VALIDATION_ISSUE_CHARS, MAX_VALIDATION_ISSUES } from '../semconv.js';

/** What an SDK validation message says: which side failed, and where. */
export type SdkValidation = {
  code: typeof ERROR_CODES.INVALID_INPUT | typeof ERROR_CODES.INVALID_OUTPUT;
  issues: ValidationIssue[];
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

// The SDK's error prefix (`McpError`'s message; a client may wrap it once more), then the stage it failed in.
const ERROR_PREFIX = /^(?:MCP error -?\d+: )+/;
const STAGE = /^(Input|Output) validation error: /;
const INPUT = /^Invalid arguments for tool [^\n]{1,256}?: /;
const OUTPUT = /^Invalid structured content for tool [^\n]{1,256}?: /;
const NO_OUTPUT = /^Tool [^\n]{1,256}? has an output schema but no structured content was provided/;

/** Where a message is only Zod's wording, its issue code; the first match wins. */
const WORDING: readonly (readonly [RegExp, string])[] = [
  [/^Invalid input: expected [\w$]+, received [\w$]+$/, 'invalid_type'],
  [/^Expected [\w$ |]+, received [\w$]+$/, 'invalid_type'],
  [/^Required$/, 'invalid_type'],
  [/^Invalid (?:input|option): expected /, 'invalid_value'],
  [/^Invalid enum value\. Expected /, 'invalid_value'],
  [/^Invalid literal value, expected /, 'invalid_value'],
  [/^Too big: /, 'too_big'],
  [/^Too small: /, 'too_small'],
  [/^\w+ must (?:contain at most|be less than|not be greater than)/, 'too_big'],
  [/^\w+ must (?:contain at least|be greater than|not be smaller than)/, 'too_small'],
  [/^Invalid number: must be a multiple of /, 'not_multiple_of'],
  [/^Invalid discriminator value\. Expected /, 'invalid_union'],
  [/^Invalid key in \w+$/, 'invalid_key'],
  [/^Invalid value in \w+$/, 'invalid_element'],
  [/^Invalid string: /, 'invalid_format'],
  [/^Invalid input$/, 'custom'],
  [/^Invalid [\w .-]{1,40}$/, 'invalid_format'],
];
// Zod 3's enum message ends with the value it got: everything from there is cut.
const RECEIVED_VALUE = /, received '.*$/s;
const UNRECOGNIZED = /^Unrecognized key(?:s|\(s\) in object)?: /;
const UNRECOGNIZED_MESSAGE = 'Unrecognized key: not part of the contract';
/** A message that is not Zod's own wording: its code, and what is said instead of it. */
const OWN_WORDING = {
  code: 'custom',
  message: 'Rejected by the server (its message is not recorded)',
};

const clip = (text: string): string =>
  text.length <= MAX_VALIDATION_ISSUE_CHARS
    ? text
    : `${text.slice(0, MAX_VALIDATION_ISSUE_CHARS - 1)}…`;

/** `edits[0].oldText` (SDK 1.x) and `edits.0.oldText` (SDK 2.x) both as the envelope's dotted path. */
const dotted = (path: string): string =>
  path === '' ? ROOT_PATH : path.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');

const joined = (parts: readonly unknown[]): string =>
  parts.length === 0 ? ROOT_PATH : parts.map((p) => String(p)).join('.');

/** The issues one message makes (an unrecognized-keys message names each key as its own path). */
function issuesOf(path: string, message: string, zodCode?: string): ValidationIssue[] {
  if (UNRECOGNIZED.test(message) || zodCode === 'unrecognized_keys') {
    const keys = [...message.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? '');
    const base = path === ROOT_PATH ? '' : `${path}.`;
    return keys.map((k) => ({
      path: clip(`${base}${k}`),
      code: 'unrecognized_keys',
      message: UNRECOGNIZED_MESSAGE,
    }));
  }
  const wording = WORDING.find(([re]) => re.test(message));
  if (!wording)
    return [
      { path: clip(path), code: clip(zodCode ?? OWN_WORDING.code), message: OWN_WORDING.message },
    ];
  return [
    {
      path: clip(path),
      code: clip(zodCode ?? wording[1]),
      message: clip(message.replace(RECEIVED_VALUE, '')),
    },
  ];
}

/** A zod 3 issue list (`[{ code, path, message, keys? }]`), as older SDK 1.x releases put it in the text. */
function fromZod3Json(body: string): ValidationIssue[] | undefined {
  let items: unknown;
  try {
    items = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!Array.isArray(items)) return undefined;
  const out: ValidationIssue[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    const path = Array.isArray(item.path) ? joined(item.path) : ROOT_PATH;
    const code = typeof item.code === 'string' ? item.code : undefined;
    if (code === 'unrecognized_keys' && Array.isArray(item.keys)) {
      const base = path === ROOT_PATH ? '' : `${path}.`;
      for (const k of item.keys)
        out.push({ path: clip(`${base}${String(k)}`), code, message: UNRECOGNIZED_MESSAGE });
      continue;
    }
    out.push(...issuesOf(path, typeof item.message === 'string' ? item.message : '', code));
  }
  return out;
}

// SDK 1.x: `<message> at <path>`, one issue per line (a root issue has no ` at `).
const AT_PATH = /^(.*) at (\S+)$/s;
// SDK 2.x: `<path>: <message>` joined by `, `; a new issue starts where `, ` is followed by a path and `: `
// (Zod's messages have a space before their first colon, paths none) or by a root issue's Zod message.
const NEXT_ISSUE =
  /, (?=[^\s,:"'()]+: |(?:Invalid|Too big|Too small|Unrecognized|Expected|Required)\b)/;
const PATH_FIRST = /^([^\s:"'()]+): (.*)$/s;

function fromLines(body: string): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const line of body.split('\n')) {
    if (line.trim() === '') continue;
    const m = AT_PATH.exec(line);
    out.push(...(m ? issuesOf(dotted(m[2] ?? ''), m[1] ?? '') : issuesOf(ROOT_PATH, line)));
  }
  return out;
}

function fromPathFirst(body: string): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const part of body.split(NEXT_ISSUE)) {
    const m = PATH_FIRST.exec(part);
    out.push(...(m ? issuesOf(dotted(m[1] ?? ''), m[2] ?? '') : issuesOf(ROOT_PATH, part)));
  }
  return out;
}

/** The issues of a message's body, in whichever of the SDKs' layouts it is written. */
function issuesOfBody(body: string): ValidationIssue[] {
  const text = body.trim();
  if (text.startsWith('[')) {
    const json = fromZod3Json(text);
    if (json) return json;
  }
  const lines = text.includes('\n') || AT_PATH.test(text);
  return lines ? fromLines(text) : fromPathFirst(text);
}

/**
 * What an SDK validation message says (the text of an `isError` result, or a -32602 error's message), or
 * undefined when the text is not one. Never more than the envelope's cap of issues.
 */
export function sdkValidationOfText(text: string): SdkValidation | undefined {
  let rest = text.replace(ERROR_PREFIX, '');
  const stage = STAGE.exec(rest);
  if (stage) rest = rest.slice(stage[0].length);
  let code: SdkValidation['code'];
  let issues: ValidationIssue[];
  const input = INPUT.exec(rest);
  const output = input ? undefined : OUTPUT.exec(rest);
  if (input) {
    code = ERROR_CODES.INVALID_INPUT;
    issues = issuesOfBody(rest.slice(input[0].length));
  } else if (output) {
    code = ERROR_CODES.INVALID_OUTPUT;
    issues = issuesOfBody(rest.slice(output[0].length));
  } else if (NO_OUTPUT.test(rest)) {
    code = ERROR_CODES.INVALID_OUTPUT;
    issues = [{ path: ROOT_PATH, code: 'missing', message: 'structuredContent is missing' }];
  } else return undefined;
  return { code, issues: issues.slice(0, MAX_VALIDATION_ISSUES) };
}

/** The same for a `tools/call` result: an `isError` result whose first text is an SDK validation message. */
export function sdkValidationOfResult(result: unknown): SdkValidation | undefined {
  if (!isRecord(result) || result.isError !== true || !Array.isArray(result.content))
    return undefined;
  const first: unknown = result.content[0];
  return isRecord(first) && typeof first.text === 'string'
    ? sdkValidationOfText(first.text)
    : undefined;
}
