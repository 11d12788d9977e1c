// What changed between two contracts of a tool, in the JSON Schema's own terms: `output.orders[].status.enum`
// rather than `/properties/orders/items/properties/status/enum/2`. Sets (enum, required, type lists) are compared
// as sets, one change per value, so inserting an enum value is one "added", not a shift of every later index.
// docs/decisions/0009-contract-diff.md says why this is not a generic JSON diff library.
import { isDeepStrictEqual } from 'node:util';

export type SchemaChange = {
  path: string;
  change: 'added' | 'removed' | 'changed';
  before: unknown;
  after: unknown;
};

export type DiffableContract = {
  description: string | null;
  inputSchema: unknown;
  outputSchema: unknown;
};

const SET_KEYWORDS = new Set(['enum', 'required', 'type']);
const COMBINATORS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
// The dialect URI says nothing about the contract.
const IGNORED = new Set(['$schema']);
const MAX_CHANGES = 200;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function diffContracts(before: DiffableContract, after: DiffableContract): SchemaChange[] {
  const out: SchemaChange[] = [];
  if (before.description !== after.description)
    out.push(change('description', before.description, after.description));
  diffSchema('input', before.inputSchema ?? null, after.inputSchema ?? null, out);
  diffSchema('output', before.outputSchema ?? null, after.outputSchema ?? null, out);
  return out.slice(0, MAX_CHANGES);
}

function change(path: string, before: unknown, after: unknown): SchemaChange {
  const kind =
    before === undefined || before === null
      ? 'added'
      : after === undefined || after === null
        ? 'removed'
        : 'changed';
  return { path, change: kind, before: before ?? null, after: after ?? null };
}

function diffSchema(path: string, a: unknown, b: unknown, out: SchemaChange[]): void {
  if (out.length >= MAX_CHANGES || isDeepStrictEqual(a, b)) return;
  if (!isObject(a) || !isObject(b)) {
    out.push(change(path, a, b));
    return;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const key of keys) {
    if (IGNORED.has(key)) continue;
    const x = a[key];
    const y = b[key];
    if (isDeepStrictEqual(x, y)) continue;
    if (key === 'properties' && (isObject(x) || isObject(y))) {
      diffProperties(path, isObject(x) ? x : {}, isObject(y) ? y : {}, out);
    } else if (key === 'items' && isObject(x) && isObject(y)) {
      diffSchema(`${path}[]`, x, y, out);
    } else if (key === 'additionalProperties' && isObject(x) && isObject(y)) {
      diffSchema(`${path}.*`, x, y, out);
    } else if (SET_KEYWORDS.has(key) && (Array.isArray(x) || Array.isArray(y))) {
      diffSet(`${path}.${key}`, asList(x), asList(y), out);
    } else if (COMBINATORS.has(key) && Array.isArray(x) && Array.isArray(y)) {
      const n = Math.max(x.length, y.length);
      for (let i = 0; i < n; i++)
        diffSchema(`${path}.${key}[${i}]`, x[i] ?? null, y[i] ?? null, out);
    } else {
      out.push(change(`${path}.${key}`, x, y));
    }
  }
}

function diffProperties(path: string, a: Json, b: Json, out: SchemaChange[]): void {
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const name of names) {
    const child = `${path}.${name}`;
    if (!Object.hasOwn(a, name))
      out.push({ path: child, change: 'added', before: null, after: b[name] });
    else if (!Object.hasOwn(b, name))
      out.push({ path: child, change: 'removed', before: a[name], after: null });
    else diffSchema(child, a[name], b[name], out);
  }
}

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

function diffSet(path: string, a: unknown[], b: unknown[], out: SchemaChange[]): void {
  const has = (list: unknown[], v: unknown) => list.some((w) => isDeepStrictEqual(w, v));
  for (const v of a) if (!has(b, v)) out.push({ path, change: 'removed', before: v, after: null });
  for (const v of b) if (!has(a, v)) out.push({ path, change: 'added', before: null, after: v });
}

/** The changed paths as one-line texts for a flag's evidence: `output.status.enum: added "cancelled"`. */
export function describeChanges(changes: SchemaChange[], max = 10): string[] {
  return changes.slice(0, max).map((c) => {
    const value = c.change === 'removed' ? c.before : c.after;
    const shown = isObject(value) || Array.isArray(value) ? '' : ` ${JSON.stringify(value)}`;
    return `${c.path}: ${c.change}${c.change === 'changed' ? '' : shown}`;
  });
}
