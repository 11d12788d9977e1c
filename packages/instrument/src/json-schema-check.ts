// Checks a value against an advertised JSON Schema (a tool's outputSchema) with Ajv, configured as the MCP SDK
// configures its default validator, so a break found here is one the SDK's own client refuses too; Ajv's errors
// become envelope issues (paths and keywords; Ajv's messages name schema rules, never the data's values).
import { createRequire } from 'node:module';
import type { ValidationIssue } from './contract.js';
import { ROOT_PATH } from './input-shape.js';
import { MAX_VALIDATION_ISSUE_CHARS, MAX_VALIDATION_ISSUES } from './semconv.js';

/** The issues of a value that breaks the schema, or undefined when it conforms. */
export type SchemaCheck = (value: unknown) => ValidationIssue[] | undefined;

type AjvError = { instancePath: string; keyword: string; params: unknown; message?: string };
type AjvValidate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
type AjvInstance = {
  compile(schema: object): AjvValidate;
  removeSchema(schema: object): unknown;
};
type AjvClass = new (options: Record<string, unknown>) => AjvInstance;

let ajv: AjvInstance | null | undefined;

/** Ajv and ajv-formats come with the MCP SDK; without them (no SDK installed) there is nothing to check. */
function ajvInstance(): AjvInstance | null {
  if (ajv !== undefined) return ajv;
  try {
    const require = createRequire(import.meta.url);
    const ajvModule: unknown = require('ajv');
    const formatsModule: unknown = require('ajv-formats');
    const Ajv = (Reflect.get(ajvModule as object, 'default') ?? ajvModule) as AjvClass;
    const addFormats = (Reflect.get(formatsModule as object, 'default') ?? formatsModule) as (
      a: AjvInstance,
    ) => void;
    // The options of the SDK's AjvJsonSchemaValidator (validation/ajv-provider).
    const made = new Ajv({
      strict: false,
      validateFormats: true,
      validateSchema: false,
      allErrors: true,
    });
    addFormats(made);
    ajv = made;
  } catch {
    ajv = null;
  }
  return ajv;
}

// Compiled checks by schema text: a proxy sees the same schemas again on every tools/list, as new objects.
const MAX_CACHED = 512;
const compiled = new Map<string, SchemaCheck | null>();

/**
 * A check for `schema`: null when the schema cannot be compiled (no check rather than a false break), undefined
 * when Ajv is not installed (the caller may fall back to another checker).
 */
export function compileSchemaCheck(schema: unknown): SchemaCheck | null | undefined {
  const instance = ajvInstance();
  if (!instance) return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return null;
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return null;
  }
  const known = compiled.get(text);
  if (known !== undefined) return known;
  let check: SchemaCheck | null = null;
  try {
    const validate = instance.compile(schema);
    // Ajv keeps every compiled schema (and refuses a second one with the same $id): the function is kept here.
    instance.removeSchema(schema);
    check = (value) => (validate(value) ? undefined : toIssues(validate.errors ?? []));
  } catch {
    check = null;
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(text, check);
  return check;
}

function pathOf(error: AjvError): string {
  const parts = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/');
  const params = typeof error.params === 'object' && error.params !== null ? error.params : {};
  // A missing or an extra key is reported by Ajv on its parent; the issue names the key itself.
  const key = Reflect.get(params, 'missingProperty') ?? Reflect.get(params, 'additionalProperty');
  if (typeof key === 'string') parts.push(key);
  const path = parts.map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');
  return path === '' ? ROOT_PATH : path;
}

function clip(text: string): string {
  return text.length <= MAX_VALIDATION_ISSUE_CHARS
    ? text
    : `${text.slice(0, MAX_VALIDATION_ISSUE_CHARS - 1)}…`;
}

function toIssues(errors: AjvError[]): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (out.length >= MAX_VALIDATION_ISSUES) break;
    const issue = {
      path: clip(pathOf(error)),
      code: clip(error.keyword),
      message: clip(error.message ?? error.keyword),
    };
    // Branches of an anyOf can report the same break more than once: it is one thing to fix.
    const key = `${issue.path}\u0000${issue.code}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out.length > 0
    ? out
    : [{ path: ROOT_PATH, code: 'schema', message: 'does not match the schema' }];
}
