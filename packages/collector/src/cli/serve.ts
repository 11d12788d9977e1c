// `toolscope serve`: flags parsed and validated, the collector started, SIGINT/SIGTERM answered with an
// orderly shutdown that commits everything already acknowledged.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { parseDurationMs } from '../api/params.js';
import { type Collector, NO_HASH_KEY_WARNING } from '../collector.js';
import { randomHashKey } from '../ingest/content-policy.js';
import { createLogger, logLevelSchema, logProcessWarnings } from '../ops/logger.js';
import { redactDbUrl } from '../storage/open.js';
import type { CliIo } from './io.js';
import { boundFlags, boundOptions } from './serve-bounds.js';
import {
  DEFAULT_GRPC_PORT,
  type GrpcOutcome,
  heldLog,
  startProblem,
  startServing,
  startupText,
} from './serve-start.js';
import { serveToken } from './serve-token.js';
import { SERVE_USAGE } from './serve-usage.js';

const serveFlagsSchema = z.object({
  db: z.string().min(1).default('./toolscope.db'),
  'pool-size': z.coerce
    .number()
    .int()
    .min(3, 'at least 3: one writes, one merges rollup rows, one reads')
    .max(1000)
    .default(10),
  'db-statement-timeout': z
    .string()
    .transform((v, ctx) => {
      const ms = parseDurationMs(v);
      if (ms === undefined || ms < 1) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration such as 10s or 500ms' });
        return z.NEVER;
      }
      return ms;
    })
    .optional(),
  'exit-if-db-unreachable': z.boolean().default(false),
  host: z.string().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(0).max(65_535).default(4318),
  // No default here: a port given explicitly must be bound, the default may be skipped (serve-start.ts).
  'grpc-port': z.coerce.number().int().min(0).max(65_535).optional(),
  'hash-key': z.string().min(16, 'use at least 16 characters').optional(),
  'capture-content': z.boolean().default(false),
  retention: z
    .string()
    .transform((v, ctx) => {
      const ms = parseDurationMs(v);
      if (ms === undefined || ms <= 0) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration such as 7d, 24h or 90m' });
        return z.NEVER;
      }
      return ms;
    })
    .optional(),
  token: z.string().min(8, 'use at least 8 characters').optional(),
  ...boundFlags,
  sync: z.enum(['normal', 'full']).default('normal'),
  'log-level': logLevelSchema.default('info'),
  'alert-webhook': z.url({ protocol: /^https?$/ }).optional(),
  'identical-retry-min': z.coerce.number().int().min(2).max(100).optional(),
  'retry-cap': z.coerce.number().int().min(1).max(100).optional(),
  'cycle-min-rounds': z.coerce.number().int().min(2).max(100).optional(),
  'churn-min-calls': z.coerce.number().int().min(3).max(1000).optional(),
  'poll-min-calls': z.coerce.number().int().min(2).max(1000).optional(),
  'schema-token-budget': z.coerce.number().int().min(1).max(1_000_000).optional(),
  'result-token-budget': z.coerce.number().int().min(1).max(100_000_000).optional(),
  'rollout-grace': z
    .string()
    .transform((v, ctx) => {
      const ms = parseDurationMs(v);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration such as 5m, 30s or 0s' });
        return z.NEVER;
      }
      return ms;
    })
    .optional(),
});

export async function serve(argv: string[], io: CliIo): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        db: { type: 'string' },
        'pool-size': { type: 'string' },
        'db-statement-timeout': { type: 'string' },
        'exit-if-db-unreachable': { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        'grpc-port': { type: 'string' },
        'hash-key': { type: 'string' },
        'capture-content': { type: 'boolean' },
        retention: { type: 'string' },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        'max-body-mb': { type: 'string' },
        'max-inflight-mb': { type: 'string' },
        'max-pending-spans': { type: 'string' },
        'memory-limit-mib': { type: 'string' },
        sync: { type: 'string' },
        'log-level': { type: 'string' },
        'alert-webhook': { type: 'string' },
        'identical-retry-min': { type: 'string' },
        'retry-cap': { type: 'string' },
        'cycle-min-rounds': { type: 'string' },
        'churn-min-calls': { type: 'string' },
        'poll-min-calls': { type: 'string' },
        'rollout-grace': { type: 'string' },
        'schema-token-budget': { type: 'string' },
        'result-token-budget': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    io.err(
      `toolscope serve: ${error instanceof Error ? error.message : 'invalid arguments'}\n\n${SERVE_USAGE}`,
    );
    return 2;
  }
  if (values.help) {
    io.out(SERVE_USAGE);
    return 0;
  }
  const { help: _help, 'token-file': tokenFile, ...flags } = values;
  const token = serveToken(flags.token, tokenFile, io.env);
  if (!token.ok) {
    io.err(`toolscope serve: ${token.message}\n`);
    return 2;
  }
  const parsed = serveFlagsSchema.safeParse({
    ...flags,
    db: flags.db ?? (io.env.TOOLSCOPE_DB || undefined),
    token: token.token,
    'hash-key': flags['hash-key'] ?? (io.env.TOOLSCOPE_HASH_KEY || undefined),
    'capture-content': flags['capture-content'] ?? io.env.TOOLSCOPE_CAPTURE_CONTENT === 'true',
    'memory-limit-mib':
      flags['memory-limit-mib'] ?? (io.env.TOOLSCOPE_MEMORY_LIMIT_MIB || undefined),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    io.err(`toolscope serve: --${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'invalid'}\n`);
    return 2;
  }
  const f = parsed.data;
  const loopback = f.host === '127.0.0.1' || f.host === 'localhost' || f.host === '::1';
  if (!loopback && !f.token) {
    io.err(
      `warning: listening on ${f.host} without --token: anyone who can reach this port can send and read traces\n`,
    );
  }
  // A WAL checkpoint that failed, a damaged row: one JSON line each, in the collector's log.
  const logLines = heldLog();
  const log = createLogger(f['log-level'], logLines.stream);
  const unrouteWarnings = logProcessWarnings(log);
  const grpcAsked = {
    port: f['grpc-port'] ?? DEFAULT_GRPC_PORT,
    explicit: f['grpc-port'] !== undefined,
  };
  let started: { collector: Collector; grpc: GrpcOutcome };
  try {
    started = await startServing(grpcAsked, {
      db: f.db,
      poolSize: f['pool-size'],
      waitForDatabase: !f['exit-if-db-unreachable'],
      ...(f['db-statement-timeout'] ? { statementTimeoutMs: f['db-statement-timeout'] } : {}),
      host: f.host,
      port: f.port,
      // Without a key the collector would warn in JSON before anything else is printed: serve logs that
      // warning itself, after the lines for people.
      hashKey: f['hash-key'] ?? randomHashKey(),
      captureContent: f['capture-content'],
      token: f.token,
      retentionMs: f.retention,
      ...boundOptions(f),
      synchronous: f.sync === 'full' ? 'FULL' : 'NORMAL',
      alertWebhook: f['alert-webhook'],
      thresholds: {
        ...(f['identical-retry-min'] ? { identicalRetryMin: f['identical-retry-min'] } : {}),
        ...(f['retry-cap'] ? { retryCap: f['retry-cap'] } : {}),
        ...(f['cycle-min-rounds'] ? { cycleMinRounds: f['cycle-min-rounds'] } : {}),
        ...(f['churn-min-calls'] ? { churnMinCalls: f['churn-min-calls'] } : {}),
        ...(f['poll-min-calls'] ? { pollMinCalls: f['poll-min-calls'] } : {}),
      },
      drift: {
        ...(f['rollout-grace'] !== undefined
          ? { rolloutGraceNs: BigInt(f['rollout-grace']) * 1_000_000n }
          : {}),
        ...(f['schema-token-budget'] !== undefined
          ? { schemaTokenBudget: f['schema-token-budget'] }
          : {}),
        ...(f['result-token-budget'] !== undefined
          ? { resultTokenBudget: f['result-token-budget'] }
          : {}),
      },
      logLevel: f['log-level'],
      logDestination: logLines.stream,
    });
  } catch (error) {
    logLines.release();
    io.err(
      `toolscope serve: cannot start: ${startProblem(error, { ...f, 'grpc-port': grpcAsked.port })}\n`,
    );
    unrouteWarnings();
    return 1;
  }
  const { collector, grpc } = started;
  const hashKeySet = f['hash-key'] !== undefined;
  io.out(
    startupText({
      url: collector.url,
      host: f.host,
      grpc,
      db: redactDbUrl(f.db),
      retention: f.retention ? String(flags.retention) : undefined,
      hashKeySet,
      logs: f['log-level'] !== 'silent',
    }),
  );
  // The same facts for machines, after the lines for people.
  if (grpc.state === 'off' && grpc.why === 'taken')
    log.warn(
      { cause: { code: grpc.code }, port: grpc.port },
      'OTLP/gRPC not started: its default port cannot be bound; OTLP/HTTP serves alone (--grpc-port chooses one)',
    );
  if (!hashKeySet) log.warn(NO_HASH_KEY_WARNING);
  logLines.release();
  const exitCode = await new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        io.err('second signal: exiting without waiting\n');
        resolve(1);
        return;
      }
      stopping = true;
      io.out(`${signal}: flushing acknowledged spans and closing\n`);
      collector.close().then(
        () => resolve(0),
        (error: unknown) => {
          io.err(`shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve(1);
        },
      );
    };
    io.onSignal('SIGINT', () => stop('SIGINT'));
    io.onSignal('SIGTERM', () => stop('SIGTERM'));
  });
  unrouteWarnings();
  return exitCode;
}
