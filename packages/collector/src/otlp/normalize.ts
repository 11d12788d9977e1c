// Shared rules for both decoders: id checks, attribute caps and truncation marks, span assembly.
import { ATTR_TOOLSCOPE_CONTRACT_ENTRY } from '@toolscope/instrument/semconv';
import { type AttrMap, type AttrValue, LIMITS, type NormalizedSpan } from './model.js';

const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const MAX_NS = 2n ** 63n - 1n;

export function validTraceId(hex: string): boolean {
  return HEX_TRACE.test(hex) && hex !== ZERO_TRACE;
}

export function validSpanId(hex: string): boolean {
  return HEX_SPAN.test(hex) && hex !== ZERO_SPAN;
}

/** Never written: `truncated` is replaced by a list of its own before a key is added. */
const NO_KEYS: string[] = [];

/**
 * An empty attribute map: a plain object as `{}` is (prototype Object.prototype, no own property), made by a
 * constructor, so that V8 sizes it by the maps made before (in-object slack tracking). `{}` has room for four
 * properties in the object, and a span's dozen more reallocated its property array every few: 265 against 180
 * bytes a map measured on maps of the bench's sizes.
 */
function PlainMap(): void {}
PlainMap.prototype = Object.prototype;
const newAttrMap = (): AttrMap => Reflect.construct(PlainMap, []) as AttrMap;

/** Collects attributes under the caps; records cut values and dropped attributes on `sink`. */
export class AttrCollector {
  // A plain object, not Object.create(null): V8 keeps null-prototype objects in slow dictionary mode, which
  // made storing spans ~2x slower. `__proto__` is written as an own property (setAttr), never as a prototype.
  map: AttrMap = newAttrMap();
  count = 0;
  dropped = 0;
  /** The keys whose values were cut: a shared empty list until one is (most spans), then a list of their own. */
  truncated: string[] = NO_KEYS;

  constructor(private readonly max: number = LIMITS.maxAttributesPerSpan) {}

  /** The collector emptied, with a new map, for a reader that reuses one collector message after message. */
  reset(): this {
    this.map = newAttrMap();
    this.count = 0;
    this.dropped = 0;
    this.truncated = NO_KEYS;
    return this;
  }

  add(key: string, value: AttrValue | undefined): void {
    if (value === undefined) return;
    if (this.count >= this.max && !Object.hasOwn(this.map, key)) {
      this.dropped++;
      return;
    }
    let k = key;
    if (k.length > LIMITS.maxNameLength) k = k.slice(0, LIMITS.maxNameLength);
    if (!Object.hasOwn(this.map, k)) this.count++;
    // Fast path for the common attribute (a short string, a number, a boolean): no result object.
    if (typeof value !== 'object' || value === null) {
      if (
        typeof value === 'string' &&
        value.length > LIMITS.maxStringLength &&
        !(k === ATTR_TOOLSCOPE_CONTRACT_ENTRY && value.length <= LIMITS.maxContractEntryLength)
      ) {
        this.cut(k);
        setAttr(this.map, k, value.slice(0, LIMITS.maxStringLength));
      } else setAttr(this.map, k, value);
      return;
    }
    const capped = capValue(value, 0);
    if (capped.truncated) this.cut(k);
    setAttr(this.map, k, capped.value);
  }

  private cut(key: string): void {
    if (this.truncated === NO_KEYS) this.truncated = [];
    this.truncated.push(key);
  }
}

function capValue(value: AttrValue, depth: number): { value: AttrValue; truncated: boolean } {
  if (typeof value === 'string') {
    return value.length > LIMITS.maxStringLength
      ? { value: value.slice(0, LIMITS.maxStringLength), truncated: true }
      : { value, truncated: false };
  }
  if (value === null || typeof value !== 'object') return { value, truncated: false };
  if (depth >= LIMITS.maxDepth) return { value: null, truncated: true };
  let truncated = false;
  if (Array.isArray(value)) {
    const items = value.slice(0, LIMITS.maxArrayItems).map((v) => {
      const c = capValue(v, depth + 1);
      truncated ||= c.truncated;
      return c.value;
    });
    return { value: items, truncated: truncated || value.length > LIMITS.maxArrayItems };
  }
  const out: AttrMap = {};
  let n = 0;
  for (const key of Object.keys(value)) {
    if (n++ >= LIMITS.maxAttributesPerSpan) {
      truncated = true;
      break;
    }
    const c = capValue(value[key] as AttrValue, depth + 1);
    truncated ||= c.truncated;
    setAttr(out, key, c.value);
  }
  return { value: out, truncated };
}

export function clipName(name: string): string {
  return name.length > LIMITS.maxNameLength ? name.slice(0, LIMITS.maxNameLength) : name;
}

function eventsTooLate(events: readonly { timeNs: bigint }[]): boolean {
  for (const e of events) if (e.timeNs > MAX_NS) return true;
  return false;
}

/**
 * Why a decoded span cannot be kept (its ids or times make it unusable), or null when it can. The decoders build
 * the span itself, its field order that of NormalizedSpan, and this only checks it: a parts object copied into
 * the span was one more object per span for the scavenger.
 */
export function spanProblem(span: NormalizedSpan): string | null {
  if (!validTraceId(span.traceId)) return 'invalid trace_id (need 16 non-zero bytes)';
  if (!validSpanId(span.spanId)) return 'invalid span_id (need 8 non-zero bytes)';
  if (span.parentSpanId !== null && !validSpanId(span.parentSpanId)) {
    return 'invalid parent_span_id (need 8 bytes or none)';
  }
  // Storage keeps times as signed 64-bit integers; later than 2262 is not a real timestamp anyway.
  if (span.startNs > MAX_NS || span.endNs > MAX_NS || eventsTooLate(span.events)) {
    return 'invalid time (after the year 2262)';
  }
  return null;
}

/** Keeps the first few distinct error messages of a batch for the partial-success answer. */
export function noteError(errors: string[], message: string): void {
  if (errors.length < 5 && !errors.includes(message)) errors.push(message);
}

/** Sets an attribute as an own data property; `__proto__` stays a key and never changes the prototype. */
export function setAttr(map: AttrMap, key: string, value: AttrValue): void {
  if (key === '__proto__')
    Object.defineProperty(map, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else map[key] = value;
}
