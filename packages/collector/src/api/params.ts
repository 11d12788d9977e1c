// Query-parameter parsing: every parameter is checked, and a bad one gets a 400 naming it.

import { z } from 'zod';
import { CALL_SIDES } from '../calls/sides.js';
import { CLIENT_NAME_MAX, CLIENT_VERSION_MAX } from '../calls/tool-call.js';
import { FLAG_KINDS } from '../detectors/flag.js';

const DURATION = /^(\d{1,9})(ms|s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Milliseconds of a duration like `15m`, `24h`, `7d`; undefined when it is not one. */
export function parseDurationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * (UNIT_MS[m[2] as string] ?? 0);
}

/**
 * A point in time: an ISO 8601 date, epoch milliseconds, or a duration meaning that long ago (`24h`).
 * Returns nanoseconds since the epoch.
 */
export const timeParam = z.string().transform((text, ctx) => {
  const trimmed = text.trim();
  const ago = parseDurationMs(trimmed);
  let ms: number;
  if (ago !== undefined) ms = Date.now() - ago;
  else if (/^\d{1,15}$/.test(trimmed)) ms = Number(trimmed);
  else ms = Date.parse(trimmed);
  if (!Number.isFinite(ms) || ms < 0) {
    ctx.addIssue({
      code: 'custom',
      message: 'expected an ISO 8601 time, epoch milliseconds or a duration such as 24h',
    });
    return z.NEVER;
  }
  return BigInt(Math.trunc(ms)) * 1_000_000n;
});

const HEX32 = /^[0-9a-f]{32}$/i;
const text = z.string().min(1).max(256);

export const rangeQuerySchema = z.object({
  since: timeParam.optional(),
  until: timeParam.optional(),
});

/** Which rows a statistic or a list reads (storage/call-side.ts): each call once, or one side's view. */
export const sideParam = z
  .enum(CALL_SIDES, { message: `expected one of ${CALL_SIDES.join(', ')}` })
  .default('any');

/** An MCP client's name or version, no longer than a call keeps it (calls/tool-call.ts). */
const clientText = (what: string, max: number) =>
  z
    .string()
    .min(1, `expected the client's ${what}`)
    .max(max, `a client's ${what} is stored cut to ${max} characters`);

/** One MCP client's calls, on `/api/tools` and `/api/calls`: its name, and one of its versions. */
const clientParams = {
  client: clientText('name', CLIENT_NAME_MAX).optional(),
  clientVersion: clientText('version', CLIENT_VERSION_MAX).optional(),
};
const versionNeedsClient: [
  (q: { client?: string | undefined; clientVersion?: string | undefined }) => boolean,
  { message: string; path: string[] },
] = [
  (q) => q.clientVersion === undefined || q.client !== undefined,
  { message: 'needs client: a version names one version of a client', path: ['clientVersion'] },
];

export const toolsQuerySchema = rangeQuerySchema
  .extend({ tool: text.optional(), side: sideParam, ...clientParams })
  .strict()
  .refine(...versionNeedsClient);

export const cursorParam = z
  .string()
  .max(200)
  .transform((raw, ctx) => {
    const decoded = Buffer.from(raw, 'base64url').toString('utf8');
    const m = /^(\d{1,20}):(\d{1,15})$/.exec(decoded);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: 'not a cursor returned by this API' });
      return z.NEVER;
    }
    return { startNs: BigInt(m[1] as string), id: Number(m[2]) };
  });

export const callsQuerySchema = rangeQuerySchema
  .extend({
    tool: text.optional(),
    code: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'expected an error code such as INVALID_INPUT, or OK')
      .optional(),
    version: text.optional(),
    traceId: z
      .string()
      .regex(HEX32, 'expected 32 hex characters')
      .transform((s) => s.toLowerCase())
      .optional(),
    conversationId: text.optional(),
    callId: text.optional(),
    errors: z
      .enum(['true', 'false'], { message: 'expected true or false' })
      .transform((v) => v === 'true')
      .optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: cursorParam.optional(),
    side: sideParam,
    ...clientParams,
  })
  .strict()
  .refine(...versionNeedsClient);

export const traceIdParams = z.object({
  traceId: z
    .string()
    .regex(HEX32, 'expected 32 hex characters')
    .transform((s) => s.toLowerCase()),
});
export const conversationParams = z.object({ id: text });

export type ParseFailure = { message: string };

/** Parses query parameters, turning the first problem into a message that names the parameter. */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  query: unknown,
): { ok: true; data: z.output<S> } | { ok: false; message: string } {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return { ok: true, data: parsed.data };
  const issue = parsed.error.issues[0];
  if (!issue) return { ok: false, message: 'invalid query' };
  if (issue.code === 'unrecognized_keys')
    return { ok: false, message: `unknown parameter: ${issue.keys.join(', ')}` };
  const name = issue.path.join('.') || 'query';
  return { ok: false, message: `${name}: ${issue.message}` };
}

/** Resolves a range with defaults: the last 24 hours. */
export function rangeOf(q: {
  since?: bigint | undefined;
  until?: bigint | undefined;
}): { sinceNs: bigint; untilNs: bigint } | { error: string } {
  const untilNs = q.until ?? BigInt(Date.now()) * 1_000_000n;
  const sinceNs = q.since ?? untilNs - 86_400_000n * 1_000_000n;
  if (sinceNs >= untilNs) return { error: 'since: must be before until' };
  return { sinceNs, untilNs };
}

/** A query parsed with `schema` and its range resolved (rangeOf): the one check every ranged route makes. */
export function parseRange<
  S extends z.ZodType<{ since?: bigint | undefined; until?: bigint | undefined }>,
>(
  schema: S,
  query: unknown,
):
  | { ok: true; data: z.output<S>; range: { sinceNs: bigint; untilNs: bigint } }
  | { ok: false; message: string } {
  const q = parseQuery(schema, query);
  if (!q.ok) return q;
  const range = rangeOf(q.data);
  if ('error' in range) return { ok: false, message: range.error };
  return { ok: true, data: q.data, range };
}

export const flagsQuerySchema = rangeQuerySchema
  .extend({
    kind: z.enum(FLAG_KINDS).optional(),
    tool: text.optional(),
  })
  .strict();

export const toolParams = z.object({ name: text });
export const toolDetailQuerySchema = rangeQuerySchema.strict();
export const contractsQuerySchema = z.object({}).strict();
const schemaHashParam = z.string().regex(/^[0-9a-f]{1,64}$/, 'a schema hash: hex digits');
export const contractDiffQuerySchema = z
  .object({ from: schemaHashParam, to: schemaHashParam })
  .strict();

export const timeseriesQuerySchema = rangeQuerySchema
  .extend({
    tool: text.optional(),
    side: sideParam,
    byTool: z
      .enum(['true', 'false'], { message: 'expected true or false' })
      .transform((v) => v === 'true')
      .optional(),
    step: z
      .string()
      .transform((raw, ctx) => {
        const ms = parseDurationMs(raw);
        if (ms === undefined || ms < 60_000) {
          ctx.addIssue({
            code: 'custom',
            message: 'expected a duration of at least 1m, such as 5m or 1h',
          });
          return z.NEVER;
        }
        return ms;
      })
      .optional(),
    ...clientParams,
  })
  .strict()
  .refine(...versionNeedsClient);

export const searchQuerySchema = z.object({ q: z.string().max(256) }).strict();
