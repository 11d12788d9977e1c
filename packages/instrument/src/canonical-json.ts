// Canonical JSON of an arbitrary `unknown` value: sorted keys, so equal inputs give equal text and equal hashes.
// Model-made input can be anything; this never throws (cycles, BigInt, throwing getters, huge nesting).

/** Nesting written in full; deeper values are written as `"[depth]"`. */
export const MAX_DEPTH = 64;

/** Canonical JSON text of `value`; `undefined` for a value JSON cannot represent at the top level. */
export function canonicalJson(value: unknown): string {
  return write(value, 0, []) ?? 'null';
}

/** Keys in the default sort's order (UTF-16 code units): insertion sort for the few keys objects mostly have. */
export function sortKeys(keys: string[]): string[] {
  const n = keys.length;
  if (n > 16) return keys.sort();
  for (let i = 1; i < n; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

// `path` holds the objects being written, outermost first: a value already on it is a cycle. An array, not a
// Set: paths are short, and this runs on every result of every call.
function write(value: unknown, depth: number, path: object[]): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(`${value.toString()}n`);
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (depth >= MAX_DEPTH) return '"[depth]"';
  if (path.includes(obj)) return '"[circular]"';
  const json = callToJson(obj);
  if (json !== obj) return write(json, depth + 1, path);
  path.push(obj);
  try {
    if (Array.isArray(obj)) {
      let out = '[';
      for (let i = 0; i < obj.length; i++) {
        if (i > 0) out += ',';
        out += write(safeGet(obj, i), depth + 1, path) ?? 'null';
      }
      return `${out}]`;
    }
    const keys = sortKeys(safeKeys(obj));
    let out = '{';
    let first = true;
    for (const key of keys) {
      const text = write(safeGet(obj, key), depth + 1, path);
      if (text === undefined) continue;
      out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
      first = false;
    }
    return `${out}}`;
  } finally {
    path.pop();
  }
}

/** The markers written for a value that could not be read (a throwing `toJSON`, a throwing getter). */
export const UNSERIALIZABLE = '[unserializable]';
export const UNREADABLE = '[unreadable]';

/** What `toJSON` gives for `obj` (the object itself without one); a throwing `toJSON` gives a marker. */
export function callToJson(obj: object): unknown {
  try {
    const toJSON: unknown = Reflect.get(obj, 'toJSON');
    return typeof toJSON === 'function' ? toJSON.call(obj) : obj;
  } catch {
    return UNSERIALIZABLE;
  }
}

/** Own enumerable keys; none when reading them throws (a hostile proxy). */
export function safeKeys(obj: object): string[] {
  try {
    return Object.keys(obj);
  } catch {
    return [];
  }
}

/** A property's value; a marker when its getter throws. */
export function safeGet(obj: object, key: string | number): unknown {
  try {
    return Reflect.get(obj, key);
  } catch {
    return UNREADABLE;
  }
}
