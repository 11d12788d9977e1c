// `pnpm demo`: a collector on the embedded SQLite default, the scripted agent as its own process (which
// starts the stable and canary servers as MCP stdio child processes), then a summary of the flags and the
// dashboard URL. Ctrl-C stops it; `--exit` stops after the summary.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startCollector } from '@toolscope/collector';
import { type Flag, flagsResponseSchema } from '@toolscope/collector/schemas';
import { z } from 'zod';
import { DEMO_ROLLOUT_GRACE, DEMO_ROLLOUT_GRACE_SECONDS, EXPECTED_FLAGS } from './scenarios.js';
import { demoSummary } from './summary.js';

const argsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65_535).default(4318),
  db: z
    .string()
    .min(1)
    .default(resolve(process.env.INIT_CWD ?? process.cwd(), 'toolscope.db')),
  exit: z.boolean().default(false),
});
const { values } = parseArgs({
  options: { port: { type: 'string' }, db: { type: 'string' }, exit: { type: 'boolean' } },
  strict: true,
});
const parsed = argsSchema.safeParse(values);
if (!parsed.success) {
  const issue = parsed.error.issues[0];
  process.stderr.write(`demo: --${issue?.path.join('.')}: ${issue?.message}\n`);
  process.exit(2);
}
const opts = parsed.data;

let collector: Awaited<ReturnType<typeof startCollector>>;
try {
  collector = await startCollector({
    db: opts.db,
    port: opts.port,
    drift: { rolloutGraceNs: BigInt(DEMO_ROLLOUT_GRACE_SECONDS) * 1_000_000_000n },
  });
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `demo: cannot start the collector: ${message}${message.includes('EADDRINUSE') ? ` (port ${opts.port} is taken: pnpm demo --port 4319)` : ''}\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `collector on ${collector.url} (database ${opts.db}; version_skew grace ${DEMO_ROLLOUT_GRACE} for the demo)\n\n`,
);

const agent = fileURLToPath(new URL('./agent.ts', import.meta.url));
const code = await new Promise<number>((done) => {
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), '--conditions=@toolscope/source', agent],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        TOOLSCOPE_HASH_KEY: process.env.TOOLSCOPE_HASH_KEY ?? 'toolscope-demo',
        TOOLSCOPE_CAPTURE_CONTENT: process.env.TOOLSCOPE_CAPTURE_CONTENT ?? 'true',
      },
    },
  );
  child.on('exit', (c) => done(c ?? 1));
});
if (code !== 0) process.stderr.write(`demo: the agent exited with ${code}\n`);

// Everything the agent and servers exported is acknowledged; wait until it is committed too.
while (collector.queue.pendingSpans > 0) await new Promise((r) => setTimeout(r, 50));
// The last hour's flags, as the collector's API lists them.
const listed = await fetch(`${collector.url}/api/flags?since=1h`);
const flags: Flag[] = flagsResponseSchema.parse(await listed.json()).flags;
// The database `pnpm start` opens: toolscope serve's default, run from the workspace's root.
const startDb = fileURLToPath(new URL('../../../toolscope.db', import.meta.url));
const summary = demoSummary(flags, EXPECTED_FLAGS, {
  url: collector.url,
  db: opts.db,
  defaultDb: startDb,
  exit: opts.exit,
});
if (opts.exit) await collector.close();
process.stdout.write(`\n${summary.text}`);
if (opts.exit) process.exit(summary.missing === 0 && code === 0 ? 0 : 1);
const stop = async () => {
  await collector.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
