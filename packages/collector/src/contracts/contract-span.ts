// A contract span (the instrument's contract-report.ts, docs/contracts.md) read into the catalog row it becomes:
// one per (tool, schema hash). Its `tools/list` entry is checked with Zod; an entry the collector had to cut is
// kept without its schemas, weighed from the sender's byte count.
import * as sc from '@toolscope/instrument/semconv';
import { z } from 'zod';
import type { NormalizedSpan } from '../otlp/model.js';
import { countTokens } from './tokens.js';

export type ContractValues = {
  tool: string;
  hash: string;
  version: string;
  service: string;
  seenNs: bigint;
  description: string | null;
  /** JSON text of the schemas and annotations as listed; null when the entry was cut or unreadable. */
  inputSchema: string | null;
  outputSchema: string | null;
  annotations: string | null;
  deprecated: number;
  replacedBy: string | null;
  sunset: string | null;
  /** UTF-8 bytes and o200k tokens of the tools/list entry (tokens.ts). */
  schemaBytes: number;
  schemaTokens: number;
  origin: string;
};

const entrySchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});

const str = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v !== '' ? v.slice(0, max).replaceAll('\u0000', '\uFFFD') : null;

/** The catalog row of a contract span, or null for any other span. */
export function contractOf(span: NormalizedSpan): ContractValues | null {
  const a = span.attributes;
  const tool = str(a[sc.ATTR_TOOLSCOPE_CONTRACT_NAME], 256);
  const hash = str(a[sc.ATTR_TOOLSCOPE_CONTRACT_HASH], 64);
  if (!tool || !hash) return null;
  const raw =
    typeof a[sc.ATTR_TOOLSCOPE_CONTRACT_ENTRY] === 'string'
      ? a[sc.ATTR_TOOLSCOPE_CONTRACT_ENTRY]
      : '';
  const cut = span.truncatedKeys.includes(sc.ATTR_TOOLSCOPE_CONTRACT_ENTRY);
  let entry: z.infer<typeof entrySchema> | undefined;
  if (!cut) {
    try {
      const parsed = entrySchema.safeParse(JSON.parse(raw));
      if (parsed.success) entry = parsed.data;
    } catch {
      entry = undefined;
    }
  }
  const measured = Buffer.byteLength(raw);
  const sent = a[sc.ATTR_TOOLSCOPE_CONTRACT_BYTES];
  const schemaBytes =
    typeof sent === 'number' && Number.isInteger(sent) && sent > measured ? sent : measured;
  // A cut entry is weighed by the tokens of the part kept, scaled to the whole.
  const tokens = raw === '' ? 0 : countTokens(raw);
  const schemaTokens = Math.round(measured === 0 ? 0 : (tokens * schemaBytes) / measured);
  return {
    tool,
    hash,
    version: str(a[sc.ATTR_TOOLSCOPE_CONTRACT_VERSION], 64) ?? 'unversioned',
    service: str(span.resource['service.name'], 256) ?? 'unknown_service',
    seenNs: span.startNs,
    description: entry?.description?.slice(0, 10_000) ?? null,
    inputSchema: entry ? JSON.stringify(entry.inputSchema) : null,
    outputSchema: entry?.outputSchema ? JSON.stringify(entry.outputSchema) : null,
    annotations: entry?.annotations ? JSON.stringify(entry.annotations) : null,
    deprecated: a[sc.ATTR_TOOLSCOPE_DEPRECATED] === true ? 1 : 0,
    replacedBy: str(a[sc.ATTR_TOOLSCOPE_DEPRECATED_REPLACED_BY], 128),
    sunset: str(a[sc.ATTR_TOOLSCOPE_DEPRECATED_SUNSET], 64),
    schemaBytes,
    schemaTokens,
    origin: str(a[sc.ATTR_TOOLSCOPE_CONTRACT_ORIGIN], 32) ?? 'unknown',
  };
}
