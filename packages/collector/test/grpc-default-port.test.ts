// `toolscope serve` where another process holds 4317, as a local OpenTelemetry Collector or Jaeger does on most
// observability users' machines: without --grpc-port it says gRPC is off and why, and serves OTLP/HTTP; with
// --grpc-port 4317 it fails as before. Its first lines are for people, the JSON log follows them. Run in a
// network namespace of its own, so the real default ports are used without touching anyone else's.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inPrivateNetwork } from './private-network.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const serve = (args: string) =>
  `exec "${process.execPath}" --conditions=@toolscope/source --import tsx packages/collector/src/cli/main.ts serve --db :memory: ${args}`;
const LISTENING = 'listening on (http://\\S+)[\\s\\S]*JSON log lines follow.*\\n';

// Each case in a namespace of its own, so they run side by side.
// A start costs 2–3 s quiet (tsx compiles the collector); a loaded machine takes several times that.
describe.concurrent('serve with the default gRPC port taken', { timeout: 90_000 }, () => {
  it('turns gRPC off, says so in words, and serves OTLP/HTTP on 4318', async () => {
    const run = await inPrivateNetwork({
      hold: [4317],
      command: serve(''),
      cwd: ROOT,
      until: LISTENING,
      fetch: ['/healthz'],
    });
    expect(run.stderr).toBe('');
    expect(run.up).toBe(true);
    expect(run.url).toBe('http://127.0.0.1:4318');
    expect(run.fetched[0]?.status).toBe(200);
    const lines = run.stdout.split('\n');
    expect(lines.slice(0, 8)).toEqual([
      'toolscope collector listening on http://127.0.0.1:4318',
      '  OTLP/HTTP endpoint: http://127.0.0.1:4318/v1/traces (protobuf or JSON, gzip)',
      '  OTLP/gRPC endpoint: off, 127.0.0.1:4317 is in use by another process (send OTLP/HTTP, or choose a gRPC port with --grpc-port)',
      '  dashboard:          http://127.0.0.1:4318/',
      '  JSON API:           http://127.0.0.1:4318/api/tools',
      '  database:           :memory:',
      '  hash key:           random for this run; set TOOLSCOPE_HASH_KEY so the input hashes it computes match across runs',
      'JSON log lines follow (--log-level sets how many).',
    ]);
    // Then the log, for machines: the same two facts with their codes.
    const log = lines
      .slice(8)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; cause?: { code?: string } });
    expect(log.find((l) => l.msg.startsWith('OTLP/gRPC not started'))).toMatchObject({
      level: 40,
      cause: { code: 'EADDRINUSE' },
    });
    expect(log.some((l) => l.msg.startsWith('no hash key'))).toBe(true);
    // Stopped by SIGINT, in order.
    expect(run.stdout).toContain('SIGINT: flushing acknowledged spans and closing');
    expect(run.code).toBe(0);
  });

  it('fails as before when --grpc-port names the taken port', async () => {
    const run = await inPrivateNetwork({
      hold: [4317],
      command: serve('--grpc-port 4317'),
      cwd: ROOT,
      until: LISTENING,
    });
    expect(run.up).toBe(false);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      'toolscope serve: cannot start: cannot listen for OTLP/gRPC on 127.0.0.1:4317 (EADDRINUSE: the port is already in use); stop what uses it or choose another port with --grpc-port (0 turns gRPC off)',
    );
    expect(run.stdout).not.toMatch(/listening/);
  });

  it('listens for gRPC on 4317 when it is free, with a key and no warning', async () => {
    const run = await inPrivateNetwork({
      command: serve('--hash-key 0123456789abcdef --log-level warn'),
      cwd: ROOT,
      until: LISTENING,
    });
    expect(run.up).toBe(true);
    expect(run.stdout.split('\n').slice(0, 7)).toEqual([
      'toolscope collector listening on http://127.0.0.1:4318',
      '  OTLP/HTTP endpoint: http://127.0.0.1:4318/v1/traces (protobuf or JSON, gzip)',
      '  OTLP/gRPC endpoint: 127.0.0.1:4317 (TraceService/Export, gzip)',
      '  dashboard:          http://127.0.0.1:4318/',
      '  JSON API:           http://127.0.0.1:4318/api/tools',
      '  database:           :memory:',
      'JSON log lines follow (--log-level sets how many).',
    ]);
    expect(run.stdout).not.toContain('{"level"');
  });
});
