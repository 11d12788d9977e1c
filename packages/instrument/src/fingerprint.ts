// One walk over a raw input gives both its canonical JSON (for the input hash) and its shape, because this
// runs on every call and two walks cost twice.
import { canonicalJson } from './canonical-json.js';
import { inputShape } from './input-shape.js';

export type Fingerprint = { canonical: string; shape: string };

const SIMPLE_KEY = /^[A-Za-z_$][\w$-]*$/;

/** Canonical JSON and shape of `value`; flat objects of primitives (the common tool input) take a fast path. */
export function fingerprint(value: unknown): Fingerprint {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    try {
      if (Object.getPrototypeOf(value) === Object.prototype) {
        const fast = flatFingerprint(value as Record<string, unknown>);
        if (fast) return fast;
      }
    } catch {
      // A hostile proxy: the general path reads it defensively.
    }
  }
  return { canonical: canonicalJson(value), shape: inputShape(value) };
}

function flatFingerprint(obj: Record<string, unknown>): Fingerprint | undefined {
  const keys = Object.keys(obj);
  if (keys.length === 0 || keys.length > 64) return undefined;
  keys.sort();
  let canonical = '{';
  let shape = '';
  let first = true;
  for (const key of keys) {
    if (!SIMPLE_KEY.test(key)) return undefined;
    const v: unknown = obj[key];
    let text: string;
    let type: string;
    switch (typeof v) {
      case 'string':
        text = JSON.stringify(v);
        type = 'string';
        break;
      case 'number':
        text = Number.isFinite(v) ? String(v) : 'null';
        type = 'number';
        break;
      case 'boolean':
        text = v ? 'true' : 'false';
        type = 'boolean';
        break;
      case 'object':
        if (v !== null) return undefined;
        text = 'null';
        type = 'null';
        break;
      default:
        // undefined, functions, bigint, symbols: the general path knows their rules.
        return undefined;
    }
    canonical += `${first ? '' : ','}"${key}":${text}`;
    shape += `${first ? '' : ','}${key}:${type}`;
    first = false;
  }
  return { canonical: `${canonical}}`, shape };
}
