// Structural fingerprint of an input: sorted key paths with JSON types and no values
// (`customerId:number,includeHistory:boolean`), so drift in what clients send is visible without payloads.

const MAX_DEPTH = 8;
const MAX_PATHS = 64;
const SPECIAL = /[,:.[\]|\s]/;

/** Root path name used when the input itself is not an object. */
export const ROOT_PATH = '(root)';

/** The shape fingerprint of `value`. */
export function inputShape(value: unknown): string {
  const paths = new Map<string, Set<string>>();
  collect(value, '', 0, paths, new Set());
  const entries = [...paths.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const parts = entries
    .slice(0, MAX_PATHS)
    .map(([path, types]) => `${path === '' ? ROOT_PATH : path}:${[...types].sort().join('|')}`);
  if (entries.length > MAX_PATHS) parts.push(`…+${entries.length - MAX_PATHS}`);
  return parts.join(',');
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  if (t === 'bigint') return 'number';
  if (t === 'undefined' || t === 'function' || t === 'symbol') return 'undefined';
  return t;
}

function add(paths: Map<string, Set<string>>, path: string, type: string): void {
  const set = paths.get(path);
  if (set) set.add(type);
  else paths.set(path, new Set([type]));
}

function keyPart(key: string): string {
  return SPECIAL.test(key) || key === '' ? JSON.stringify(key) : key;
}

function collect(
  value: unknown,
  path: string,
  depth: number,
  paths: Map<string, Set<string>>,
  seen: Set<object>,
): void {
  const type = jsonType(value);
  if (type !== 'object' && type !== 'array') {
    add(paths, path, type);
    return;
  }
  const obj = value as object;
  if (depth >= MAX_DEPTH || seen.has(obj) || paths.size > MAX_PATHS * 2) {
    add(paths, path, type);
    return;
  }
  seen.add(obj);
  try {
    if (Array.isArray(obj)) {
      if (obj.length === 0) add(paths, path, 'array');
      // Elements share one path: the shape says what kinds of element arrive, not how many.
      const limit = Math.min(obj.length, 32);
      for (let i = 0; i < limit; i++) collect(obj[i], `${path}[]`, depth + 1, paths, seen);
      return;
    }
    let keys: string[];
    try {
      keys = Object.keys(obj);
    } catch {
      keys = [];
    }
    if (keys.length === 0) add(paths, path, 'object');
    for (const key of keys) {
      let child: unknown;
      try {
        child = Reflect.get(obj, key);
      } catch {
        child = undefined;
      }
      collect(
        child,
        path === '' ? keyPart(key) : `${path}.${keyPart(key)}`,
        depth + 1,
        paths,
        seen,
      );
    }
  } finally {
    seen.delete(obj);
  }
}
