// Zod issues → the envelope's repairable issue list: paths and messages, capped, never the offending value.
import type { z } from 'zod';
import type { ValidationIssue } from './contract.js';
import { ROOT_PATH } from './input-shape.js';
import { MAX_VALIDATION_ISSUE_CHARS, MAX_VALIDATION_ISSUES } from './semconv.js';

type Path = ReadonlyArray<PropertyKey>;

/** Converts Zod issues into at most 20 envelope issues of at most 200 characters per field. */
export function toValidationIssues(issues: ReadonlyArray<z.core.$ZodIssue>): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    if (out.length >= MAX_VALIDATION_ISSUES) break;
    if (issue.code === 'unrecognized_keys') {
      // One issue per extra key, each naming the key's own path, so an agent can drop exactly those.
      for (const key of issue.keys) {
        if (out.length >= MAX_VALIDATION_ISSUES) break;
        out.push(
          make([...issue.path, key], issue.code, 'Unrecognized key: not part of the contract'),
        );
      }
      continue;
    }
    out.push(make(issue.path, issue.code, issue.message));
  }
  return out;
}

function make(path: Path, code: string, message: string): ValidationIssue {
  return { path: clip(formatPath(path)), code: clip(code), message: clip(message) };
}

/** Dotted path (`items.0.id`); the input itself is `(root)`. */
export function formatPath(path: Path): string {
  if (path.length === 0) return ROOT_PATH;
  return path.map((part) => (typeof part === 'symbol' ? part.toString() : String(part))).join('.');
}

function clip(text: string): string {
  return text.length <= MAX_VALIDATION_ISSUE_CHARS
    ? text
    : `${text.slice(0, MAX_VALIDATION_ISSUE_CHARS - 1)}…`;
}
