// JSON Schemas of a tool's contract and its hash: the hash changes when the contract changes and not otherwise.
import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';
import { shortDigest } from './hashing.js';
import { setOwn } from './set-own.js';

export type JsonSchema = Record<string, unknown>;

/** JSON Schema of what the tool accepts (`io: 'input'`: defaults make fields optional). */
export function inputJsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** JSON Schema of what the tool returns after parsing. */
export function outputJsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
}

/** First 16 hex of SHA-256 over the canonical JSON of both schemas. */
export function schemaHashOf(input: JsonSchema, output: JsonSchema): string {
  return shortDigest(canonicalJson({ input: normalize(input), output: normalize(output) }));
}

/** Field order is not part of a contract: `required` lists are sorted before hashing (keys already are). */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    setOwn(
      out,
      key,
      key === 'required' && Array.isArray(child) ? [...child].map(String).sort() : normalize(child),
    );
  }
  return out;
}
