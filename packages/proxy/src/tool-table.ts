// The upstream's tools as its `tools/list` answers said them: each tool's contract version, schema hash, effect,
// deprecation and output check for the call spans, and its contract reported to the catalog as the adapters do.
import type { Attributes, TracerProvider } from '@opentelemetry/api';
import {
  compileSchemaCheck,
  deprecationAttributes,
  deprecationOfMcpTool,
  reportContract,
  type SchemaCheck,
  schemaHashOf,
} from '@toolscope/instrument/proxy-kit';
import * as sc from '@toolscope/instrument/semconv';
import { z } from 'zod';

/** What a call span needs to know of its tool. */
export type ToolInfo = {
  version: string;
  hash: string;
  effect: 'read' | 'write';
  deprecation: Attributes | undefined;
  /** The advertised outputSchema's check; null when the tool advertises none (or one that cannot compile). */
  check: SchemaCheck | null;
};

const UNVERSIONED = 'unversioned';
const jsonObject = z.record(z.string(), z.unknown());
const entrySchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  inputSchema: jsonObject.optional(),
  outputSchema: jsonObject.optional(),
  annotations: jsonObject.optional(),
  _meta: jsonObject.optional(),
});
const listSchema = z.object({ tools: z.array(z.unknown()) });

/** The tools one upstream listed. */
export class ToolTable {
  readonly #tools = new Map<string, ToolInfo>();

  get(name: string): ToolInfo | undefined {
    return this.#tools.get(name);
  }

  get size(): number {
    return this.#tools.size;
  }

  /**
   * Reads a `tools/list` result; a first page (no cursor asked) replaces what was known, later pages add.
   * Returns the number of tools read; every one's contract goes to `provider` (once per name and hash).
   */
  update(result: unknown, firstPage: boolean, provider: TracerProvider): number {
    const list = listSchema.safeParse(result);
    if (!list.success) return 0;
    if (firstPage) this.#tools.clear();
    let read = 0;
    for (const raw of list.data.tools) {
      const parsed = entrySchema.safeParse(raw);
      if (!parsed.success) continue;
      const entry = parsed.data;
      const inputSchema = entry.inputSchema ?? {};
      const meta = entry._meta;
      const declaredHash = meta?.[sc.MCP_META_SCHEMA_HASH];
      const declaredVersion = meta?.[sc.MCP_META_VERSION];
      // A `registerMcpTool` tool says its own hash and version: the proxy's spans then match the server's.
      const hash =
        typeof declaredHash === 'string' && /^[0-9a-f]{16}$/.test(declaredHash)
          ? declaredHash
          : schemaHashOf(inputSchema, entry.outputSchema ?? {});
      const version =
        typeof declaredVersion === 'string' && declaredVersion.length > 0
          ? declaredVersion
          : UNVERSIONED;
      const deprecated = deprecationOfMcpTool(entry.annotations, meta, entry.description);
      this.#tools.set(entry.name, {
        version,
        hash,
        effect: entry.annotations?.readOnlyHint === true ? 'read' : 'write',
        deprecation: deprecated ? deprecationAttributes(deprecated) : undefined,
        check: entry.outputSchema ? (compileSchemaCheck(entry.outputSchema) ?? null) : null,
      });
      reportContract(provider, {
        entry: {
          name: entry.name,
          description: entry.description,
          inputSchema,
          ...(entry.outputSchema ? { outputSchema: entry.outputSchema } : {}),
          ...(entry.annotations ? { annotations: entry.annotations } : {}),
        },
        version,
        hash,
        deprecated,
        origin: 'tools/list',
      });
      read++;
    }
    return read;
  }
}
