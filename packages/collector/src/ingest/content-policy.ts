// The collector's content rules. Every span, whoever made it (the instrument package's own included), has its
// secrets masked before it is stored: attribute values, event and link attributes, resource and status message
// by the shared rules (docs/redaction.md). Where a foreign tool span carries the arguments, the collector
// computes the keyed input hash and shape itself (the instrument package's code, same key), so retry-loop and
// drift detection work for every framework; then it keeps the arguments and the result only when content
// capture is on at the collector, and redacted as the instrument package redacts.
import { randomBytes } from 'node:crypto';
import * as sc from '@toolscope/instrument/semconv';
import {
  approxTokens,
  type CaptureOptions,
  createHasher,
  createRedactor,
  fingerprint,
  type Hasher,
  isSecretAttributeName,
  keptUnderSecretKey,
  mcpOutputHash,
  measureJson,
  type OutputSize,
  outputHash,
  REDACTED,
  type Redactor,
  redactString,
  scrubSecrets,
} from '@toolscope/instrument/shared-rules';
import { parsed } from '../calls/call-content.js';
import { argumentsOf, dialectOf, type RecognisedCall, recogniseCall } from '../calls/recognise.js';
import type { AttrMap, AttrValue, NormalizedSpan } from '../otlp/model.js';
import { setAttr } from '../otlp/normalize.js';

/** Set on a span whose argument or result attributes the collector removed (capture off): their keys. */
export const ATTR_CONTENT_DROPPED = 'toolscope.collector.content_dropped';

export type ContentPolicy = { hasher: Hasher; redact: Redactor | null };

export type ContentOptions = {
  /** The deployment's hash key (TOOLSCOPE_HASH_KEY); the same key the instrumented processes use. */
  hashKey: string;
  /** Keep foreign arguments and results, redacted (default: drop them). */
  capture: boolean;
  captureOptions?: CaptureOptions;
};

export function createContentPolicy(o: ContentOptions): ContentPolicy {
  return {
    hasher: createHasher(o.hashKey),
    redact: o.capture ? createRedactor(o.captureOptions ?? {}, undefined) : null,
  };
}

/**
 * No key configured: a random one for this process. Hashes of foreign spans then match only within this
 * collector (serve says so at start-up); the instrumented processes' own hashes are unaffected.
 */
export function defaultContentPolicy(): ContentPolicy {
  return createContentPolicy({ hashKey: randomHashKey(), capture: false });
}

export const randomHashKey = () => randomBytes(32).toString('base64');

/**
 * The size of a foreign span's result (`ai.toolCall.result`, `traceloop.entity.output`, `output.value`),
 * measured as the instrument package measures its own (shared-rules measureJson and approxTokens) before the
 * content is dropped: only the numbers stay unless capture is on. A value the collector cut is a lower bound.
 */
function measureResult(span: NormalizedSpan, key: string | undefined): void {
  const a = span.attributes;
  if (key === undefined || a[sc.ATTR_TOOLSCOPE_OUTPUT_BYTES] !== undefined) return;
  const v = a[key];
  if (v === undefined || v === null) return;
  const size: OutputSize =
    typeof v === 'string'
      ? { bytes: Buffer.byteLength(v), tokens: approxTokens(v), estimated: false }
      : measureJson(v);
  setAttr(a, sc.ATTR_TOOLSCOPE_OUTPUT_BYTES, size.bytes);
  setAttr(a, sc.ATTR_TOOLSCOPE_OUTPUT_TOKENS, size.tokens);
  if (size.estimated || span.truncatedKeys.includes(key))
    setAttr(a, sc.ATTR_TOOLSCOPE_OUTPUT_ESTIMATED, true);
}

/**
 * The keyed hash of a foreign span's result (`toolscope.output.hash`), as the instrument package hashes its own
 * (shared-rules): an MCP result as the model reads it (its content and structured content), anything else as
 * it is. A span that already says keeps its hash; a result the collector cut is not hashed (no "same result"
 * claim on a part of one).
 */
function hashResult(span: NormalizedSpan, key: string | undefined, hasher: Hasher): void {
  const a = span.attributes;
  if (key === undefined || a[sc.ATTR_TOOLSCOPE_OUTPUT_HASH] !== undefined) return;
  if (span.truncatedKeys.includes(key)) return;
  const v = parsed(a[key]);
  if (v === undefined || v === null) return;
  const mcp =
    typeof v === 'object' && !Array.isArray(v) && Array.isArray(Reflect.get(v, 'content'));
  setAttr(a, sc.ATTR_TOOLSCOPE_OUTPUT_HASH, mcp ? mcpOutputHash(v, hasher) : outputHash(v, hasher));
}

/**
 * Applies the rules to one span in place: a foreign tool call's first, then the secrets of every span. `clean`:
 * the values of the span's batch already found to hold no secret (takeIn makes one per batch).
 */
export function applyContentPolicy(
  span: NormalizedSpan,
  policy: ContentPolicy,
  clean: CleanValues = new Set(),
): void {
  const dialect = dialectOf(span);
  // The instrument package already applied its own capture rules to its calls' arguments and results.
  const call = dialect && dialect.source !== 'toolscope' ? recogniseCall(span, dialect) : null;
  if (call) applyForeignCallRules(span, call, policy);
  scrubSpan(span, clean);
}

/** Hashes and measures a foreign call's content, then keeps it redacted (capture on) or drops it. */
function applyForeignCallRules(
  span: NormalizedSpan,
  call: RecognisedCall,
  policy: ContentPolicy,
): void {
  const a: AttrMap = span.attributes;
  if (call.argsKey !== undefined && a[sc.ATTR_TOOLSCOPE_INPUT_HASH] === undefined) {
    const print = fingerprint(argumentsOf(call, a) ?? {}, policy.hasher);
    setAttr(a, sc.ATTR_TOOLSCOPE_INPUT_HASH, print.hash);
    setAttr(a, sc.ATTR_TOOLSCOPE_INPUT_SHAPE, print.shape);
  }
  measureResult(span, call.resultKey);
  hashResult(span, call.resultKey, policy.hasher);
  const dropped: string[] = [];
  for (const key of [call.argsKey, call.resultKey]) {
    if (key === undefined) continue;
    if (policy.redact) setAttr(a, key, policy.redact(parsed(a[key])));
    else {
      delete a[key];
      dropped.push(key);
    }
  }
  // A thrown error's message often quotes the input: cut as the instrument cuts its own (exception.ts).
  let stackDropped = false;
  for (const event of span.events) {
    if (event.name !== sc.EVENT_EXCEPTION) continue;
    const message = event.attributes[sc.ATTR_EXCEPTION_MESSAGE];
    if (typeof message === 'string')
      setAttr(
        event.attributes,
        sc.ATTR_EXCEPTION_MESSAGE,
        redactString(message, sc.MAX_EXCEPTION_MESSAGE_CHARS),
      );
    if (!policy.redact && event.attributes[sc.ATTR_EXCEPTION_STACKTRACE] !== undefined) {
      delete event.attributes[sc.ATTR_EXCEPTION_STACKTRACE];
      stackDropped = true;
    }
  }
  if (stackDropped) dropped.push(sc.ATTR_EXCEPTION_STACKTRACE);
  if (dropped.length > 0) setAttr(a, ATTR_CONTENT_DROPPED, dropped);
}

/** Resources already scrubbed: the spans of one resource share its map. */
const scrubbedResources = new WeakSet<AttrMap>();

/**
 * String values of one batch that the secret rules left as they were. A batch's spans repeat most of their values
 * (operation and tool names, schema hashes, input shapes, a trace's conversation id), and a value is looked up
 * for less than the scan costs; whether a value holds a secret depends on the value alone (a secret key's value
 * is redacted before this is asked). It lives for one batch, as the decoder's string table does.
 */
export type CleanValues = Set<string>;
/** What a batch's CleanValues holds at most, and the longest value it holds (a hash lookup reads it all). */
const CLEAN_MAX = 4096;
const CLEAN_MAX_CHARS = 4096;

/** Masks the secrets of a span in place: all its attributes, its events', links' and resource's, its status. */
export function scrubSpan(span: NormalizedSpan, clean: CleanValues = new Set()): void {
  scrubAttributes(span.attributes, clean);
  for (const event of span.events) scrubAttributes(event.attributes, clean);
  for (const link of span.links) scrubAttributes(link.attributes, clean);
  if (!scrubbedResources.has(span.resource)) {
    scrubAttributes(span.resource, clean);
    scrubbedResources.add(span.resource);
  }
  if (span.statusMessage !== '') span.statusMessage = scrubSecrets(span.statusMessage) as string;
}

function scrubAttributes(map: AttrMap, clean: CleanValues): void {
  for (const key in map) {
    if (!Object.hasOwn(map, key)) continue;
    const value = map[key];
    if (isSecretAttributeName(key) && !keptUnderSecretKey(key, value)) {
      if (value !== REDACTED) setAttr(map, key, REDACTED);
      continue;
    }
    if (typeof value === 'string') {
      if (clean.has(value)) continue;
      const next = scrubSecrets(value) as string;
      if (next !== value) setAttr(map, key, next);
      else if (value.length <= CLEAN_MAX_CHARS && clean.size < CLEAN_MAX) clean.add(value);
      continue;
    }
    const next = scrubSecrets(value) as AttrValue;
    if (next !== value) setAttr(map, key, next);
  }
}
