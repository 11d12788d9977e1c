// The options of `toolscope report` (and of `toolscope ci`, which takes the same): parseArgs' table and the Zod
// schema that checks them, so a bad value is a usage error that names the flag.
import { z } from 'zod';
import { parseDurationMs } from '../api/params.js';
import { CLIENT_NAME_MAX, CLIENT_VERSION_MAX } from '../calls/tool-call.js';
import { FLAG_KINDS } from '../detectors/flag.js';

/** parseArgs' option table of `report` (and, without `--url`, of `ci`). */
export const REPORT_OPTIONS = {
  db: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  since: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string' },
  'max-error-rate': { type: 'string' },
  tool: { type: 'string', multiple: true },
  'fail-on': { type: 'string', multiple: true },
  baseline: { type: 'string' },
  'max-error-rate-increase': { type: 'string' },
  'max-p95-increase': { type: 'string' },
  'max-result-tokens-increase': { type: 'string' },
  'fail-on-new': { type: 'string', multiple: true },
  'fail-on-contract-change': { type: 'boolean' },
  client: { type: 'string' },
  'client-version': { type: 'string' },
} as const;

const REPORT_FORMATS = ['markdown', 'json', 'junit', 'sarif'] as const;

const ratio = z.coerce.number().min(0).optional();
/** `--fail-on-new a --fail-on-new b` or `--fail-on-new a,b`. */
const kinds = z
  .array(z.string())
  .default([])
  .transform((v) => v.flatMap((s) => s.split(',')).filter((s) => s !== ''))
  .pipe(z.array(z.enum(FLAG_KINDS)));

const DELTA_FLAGS = [
  'max-error-rate-increase',
  'max-p95-increase',
  'max-result-tokens-increase',
  'fail-on-contract-change',
] as const;

/** The report flags as values: defaults filled, durations and ratios parsed, thresholds on change tied to --baseline. */
export const reportFlagsSchema = z
  .object({
    db: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    token: z.string().min(1).optional(),
    since: z
      .string()
      .default('24h')
      .transform((v, ctx) => {
        const ms = parseDurationMs(v);
        if (ms === undefined || ms <= 0) {
          ctx.addIssue({ code: 'custom', message: 'expected a duration such as 24h, 30m or 7d' });
          return z.NEVER;
        }
        return { ms, label: v };
      }),
    format: z.enum(REPORT_FORMATS).default('markdown'),
    output: z.string().min(1).optional(),
    'max-error-rate': z.coerce.number().min(0).max(1).optional(),
    tool: z.array(z.string().min(1)).default([]),
    'fail-on': z.array(z.enum(FLAG_KINDS)).default([]),
    baseline: z.string().min(1).optional(),
    'max-error-rate-increase': z.coerce.number().min(0).max(1).optional(),
    'max-p95-increase': ratio,
    'max-result-tokens-increase': ratio,
    'fail-on-new': kinds,
    'fail-on-contract-change': z.boolean().default(false),
    client: z.string().min(1).max(CLIENT_NAME_MAX).optional(),
    'client-version': z.string().min(1).max(CLIENT_VERSION_MAX).optional(),
  })
  .refine((f) => !(f.db && f.url), { message: 'use --db or --url, not both', path: ['db'] })
  .refine((f) => f['client-version'] === undefined || f.client !== undefined, {
    message: 'needs --client: a version names one version of a client',
    path: ['client-version'],
  })
  .superRefine((f, ctx) => {
    if (f.baseline) return;
    const given = [
      ...DELTA_FLAGS.filter((k) => f[k] !== undefined && f[k] !== false),
      ...(f['fail-on-new'].length ? (['fail-on-new'] as const) : []),
    ];
    for (const k of given)
      ctx.addIssue({
        code: 'custom',
        path: [k],
        message: 'compares with a baseline: give --baseline FILE (an earlier --format json report)',
      });
  });
/** Parsed report flags. */
export type ReportFlags = z.output<typeof reportFlagsSchema>;

/** Parses report flags out of `values`; a usage error names the flag. */
export function parseReportFlags(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { ok: true; flags: ReportFlags } | { ok: false; message: string } {
  const parsed = reportFlagsSchema.safeParse({
    ...values,
    token: values.token ?? (env.TOOLSCOPE_TOKEN || undefined),
  });
  if (parsed.success) return { ok: true, flags: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    message: `--${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`,
  };
}

/** The MCP client `--client` (and `--client-version`) name, or undefined for every call. */
export function clientOf(flags: ReportFlags): { name: string; version?: string } | undefined {
  if (flags.client === undefined) return undefined;
  return flags['client-version'] === undefined
    ? { name: flags.client }
    : { name: flags.client, version: flags['client-version'] };
}
