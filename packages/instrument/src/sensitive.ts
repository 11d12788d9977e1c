// Fields marked sensitive in a Zod schema: `sensitive(z.string())` puts `sensitive: true` in the JSON Schema,
// and a tree of those paths is built from the JSON Schema so redaction always masks them.
import type { z } from 'zod';
import type { JsonSchema } from './schema-hash.js';

/** Marks a schema field as sensitive: its value is masked in captured payloads even when capture is on. */
export function sensitive<T extends z.ZodType>(schema: T): T {
  return schema.meta({ sensitive: true });
}

/** Where sensitive values sit inside a value described by a JSON Schema. */
export type SensitiveNode = {
  sensitive: boolean;
  props: Map<string, SensitiveNode>;
  items: SensitiveNode | undefined;
  rest: SensitiveNode | undefined;
};

const MAX_DEPTH = 32;

/** The sensitive-path tree of a JSON Schema, or `undefined` when nothing in it is sensitive. */
export function sensitiveTreeOf(schema: JsonSchema): SensitiveNode | undefined {
  const defs = isRecord(schema.$defs) ? schema.$defs : {};
  const node = build(schema, defs, 0);
  return node && hasSensitive(node) ? node : undefined;
}

function emptyNode(): SensitiveNode {
  return { sensitive: false, props: new Map(), items: undefined, rest: undefined };
}

function build(
  schema: unknown,
  defs: Record<string, unknown>,
  depth: number,
): SensitiveNode | undefined {
  if (!isRecord(schema) || depth > MAX_DEPTH) return undefined;
  const node = emptyNode();
  if (schema.sensitive === true) node.sensitive = true;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace(/^#\/\$defs\//, '');
    merge(node, build(defs[name], defs, depth + 1));
  }
  if (isRecord(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties)) {
      const built = build(child, defs, depth + 1);
      if (built) node.props.set(key, built);
    }
  }
  node.items = build(schema.items, defs, depth + 1);
  node.rest = build(schema.additionalProperties, defs, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) for (const branch of list) merge(node, build(branch, defs, depth + 1));
  }
  return node;
}

function merge(into: SensitiveNode, from: SensitiveNode | undefined): void {
  if (!from) return;
  into.sensitive ||= from.sensitive;
  for (const [key, child] of from.props) {
    const existing = into.props.get(key);
    if (existing) merge(existing, child);
    else into.props.set(key, child);
  }
  if (from.items) {
    into.items ??= emptyNode();
    merge(into.items, from.items);
  }
  if (from.rest) {
    into.rest ??= emptyNode();
    merge(into.rest, from.rest);
  }
}

function hasSensitive(node: SensitiveNode): boolean {
  if (node.sensitive) return true;
  for (const child of node.props.values()) if (hasSensitive(child)) return true;
  return (
    (node.items !== undefined && hasSensitive(node.items)) ||
    (node.rest !== undefined && hasSensitive(node.rest))
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
