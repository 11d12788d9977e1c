// Deprecation of a tool (a renamed tool keeps serving through a window): declared on `defineTool`, or
// read from a plain MCP tool's annotations, `_meta` or description. Carried on every call span and in the
// contract, so the collector can list who still calls a tool and how many days are left.
import type { Attributes } from '@opentelemetry/api';
import { z } from 'zod';
import * as sc from './semconv.js';

export const deprecationSchema = z
  .object({
    /** The tool to call instead. */
    replacedBy: z.string().min(1).max(128).optional(),
    /** When the tool stops being served: an ISO date (`2027-03-01`) or date-time. */
    sunset: z.union([z.iso.date(), z.iso.datetime({ offset: true })]).optional(),
  })
  .strict();
export type Deprecation = z.infer<typeof deprecationSchema>;

/** The call-span attributes of a deprecation. */
export function deprecationAttributes(d: Deprecation): Attributes {
  const attributes: Attributes = { [sc.ATTR_TOOLSCOPE_DEPRECATED]: true };
  if (d.replacedBy) attributes[sc.ATTR_TOOLSCOPE_DEPRECATED_REPLACED_BY] = d.replacedBy;
  if (d.sunset) attributes[sc.ATTR_TOOLSCOPE_DEPRECATED_SUNSET] = d.sunset;
  return attributes;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

// "Deprecated: use list_catalogue_v2 instead; removed on 2027-03-01." — the forms seen in public MCP servers.
const DEPRECATED_WORD = /\bdeprecated\b/i;
const REPLACED_BY = /\buse\s+[`'"]?([A-Za-z0-9_.-]{1,128})[`'"]?(?:\s+instead)?/i;
const SUNSET = /\b(?:sunset|removed?|until|after|on)\b[^0-9]{0,20}(\d{4}-\d{2}-\d{2})/i;

/**
 * A plain MCP tool's deprecation: `annotations.deprecated` or `_meta["toolscope.dev/deprecated"]` (true, or an
 * object like `defineTool`'s), else the word "deprecated" in its description with "use X" and a date when given.
 */
export function deprecationOfMcpTool(
  annotations: unknown,
  meta: unknown,
  description: unknown,
): Deprecation | undefined {
  for (const declared of [
    isRecord(annotations) ? annotations.deprecated : undefined,
    isRecord(meta) ? meta['toolscope.dev/deprecated'] : undefined,
  ]) {
    // Runs on every call of a plain tool: nothing to parse is the common case, and a failed parse costs an error.
    if (declared === undefined || declared === false) continue;
    if (declared === true) return {};
    const parsed = deprecationSchema.safeParse(declared);
    if (parsed.success) return parsed.data;
  }
  if (typeof description !== 'string' || !DEPRECATED_WORD.test(description)) return undefined;
  const found: Deprecation = {};
  const replacedBy = REPLACED_BY.exec(description)?.[1];
  if (replacedBy) found.replacedBy = replacedBy;
  const sunset = SUNSET.exec(description)?.[1];
  if (sunset && deprecationSchema.shape.sunset.safeParse(sunset).success) found.sunset = sunset;
  return found;
}
