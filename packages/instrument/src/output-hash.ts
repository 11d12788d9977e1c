// The result hash (`toolscope.output.hash`): the keyed hash of the canonical result as the model reads it, so a
// repeated call can be told to have returned the same answer without the answer being kept anywhere.
import { withCanonicalBytes } from './canonical-bytes.js';
import { canonicalJson } from './canonical-json.js';
import type { Hasher } from './hashing.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keyed hash (same key and HMAC as the input hash, first 16 hex) of `result`'s canonical JSON. */
export function outputHash(result: unknown, hasher: Hasher): string {
  // The canonical bytes hashed where they are written; the text path only for a walk nested in another.
  return withCanonicalBytes(result, hasher.bytes) ?? hasher(canonicalJson(result));
}

/**
 * What the model reads of an MCP `CallToolResult`: its `content` and, when present, its `structuredContent`
 * (`isError` and `_meta` are the client's business). Anything else is read as it is.
 */
export function mcpResultView(result: unknown): unknown {
  if (!isRecord(result)) return result;
  const view: Record<string, unknown> = {
    content: Array.isArray(result.content) ? result.content : [],
  };
  if (result.structuredContent !== undefined) view.structuredContent = result.structuredContent;
  return view;
}

/** `outputHash` of an MCP result as the model reads it (`mcpResultView`). */
export function mcpOutputHash(result: unknown, hasher: Hasher): string {
  return outputHash(mcpResultView(result), hasher);
}
