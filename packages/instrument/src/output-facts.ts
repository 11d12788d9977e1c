// A result's size and hash from one walk: the canonical walk that writes the bytes the keyed hash reads also
// counts what measureJson counts (canonical-bytes.ts), so a result is read once instead of twice (decision 0026).
// The attributes are those of mcpOutputAttributes plus mcpOutputHash (or measureJson plus outputHash), to the byte.
import type { Attributes } from '@opentelemetry/api';
import { lastWalk, withCanonicalBytes } from './canonical-bytes.js';
import { canonicalJson } from './canonical-json.js';
import type { Hasher } from './hashing.js';
import { mcpResultView, outputHash } from './output-hash.js';
import { measureJson, outputAttributes } from './output-size.js';
import * as sc from './semconv.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets the size attributes of `value` and returns its output hash. */
function sizeAndHash(value: unknown, hasher: Hasher, into: Attributes): string {
  const hash = withCanonicalBytes(value, hasher.bytes);
  if (hash !== undefined && lastWalk.exact) {
    into[sc.ATTR_TOOLSCOPE_OUTPUT_BYTES] = lastWalk.bytes;
    into[sc.ATTR_TOOLSCOPE_OUTPUT_TOKENS] = lastWalk.tokens;
    return hash;
  }
  // A value where the two rules part, or a walk nested in another: each counted on its own, as before.
  outputAttributes(measureJson(value), into);
  return hash ?? hasher(canonicalJson(value));
}

/** `outputAttributes(measureJson(value))` and `toolscope.output.hash` (outputHash) of any value, in one walk. */
export function outputFacts(value: unknown, hasher: Hasher, into: Attributes = {}): Attributes {
  into[sc.ATTR_TOOLSCOPE_OUTPUT_HASH] = sizeAndHash(value, hasher, into);
  return into;
}

/**
 * What `mcpOutputAttributes(result, into)` then `into[toolscope.output.hash] = mcpOutputHash(result, hasher)` set,
 * the same values, from one walk of what the model reads (content and structuredContent).
 */
export function mcpOutputFacts(result: unknown, hasher: Hasher, into: Attributes = {}): Attributes {
  if (!isRecord(result)) {
    into[sc.ATTR_TOOLSCOPE_OUTPUT_HASH] = outputHash(result, hasher);
    return into;
  }
  const view = mcpResultView(result) as { content: unknown[] };
  const hash = sizeAndHash(view, hasher, into);
  const content = view.content;
  into[sc.ATTR_TOOLSCOPE_OUTPUT_CONTENT_ITEMS] = content.length;
  let links = 0;
  for (const item of content) if (isRecord(item) && item.type === 'resource_link') links++;
  into[sc.ATTR_TOOLSCOPE_OUTPUT_RESOURCE_LINKS] = links;
  into[sc.ATTR_TOOLSCOPE_OUTPUT_HASH] = hash;
  return into;
}
