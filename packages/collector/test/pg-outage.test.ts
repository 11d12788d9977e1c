// PostgreSQL killed under the collectors: two `toolscope serve` processes ingest while the postmaster of their
// database is killed with SIGKILL and started again, KILLS times in one run. Neither process exits; while the
// database is gone each answers 503 with Retry-After, quickly; each logs the outage once (with its cause and
// code) and its end once; ingest resumes by itself; every batch answered 200 is readable afterwards; a retry
// loop whose calls straddle an outage is flagged once; the URL's password never appears in any output.
// The server is this file's own (pg-server.ts), since scripts/with-postgres.sh's is shared by other files.
// The collectors run as installed (built.ts, docs/decisions/0058).
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, jsonBody, otlpToolCalls, postJson, startServe } from './harness.js';
import { type OwnPg, serverBin, startOwnPg } from './pg-server.js';

// The crash this guards against killed one collector in 2 of 6 runs (and both, on the first kill, in this test
// against that code); with 20 kills under two collectors a one-in-three crash per kill passes by luck with
// probability (2/3)^20 < 0.03 % per collector. A kill and restart take 0.2-0.8 s here.
const KILLS = 20;
const PASSWORD = 'pw-Never-Logged-42';
/** Far above the collector's bounds (2 s to connect, 10 s per statement), so only a hang fails it. */
const HANG_MS = 15_000;

type Serve = { child: ChildProcess; url: string; output: () => string; stderr: () => string };
type Line = { level: number; msg: string; cause?: { code?: string; message: string } };

let server: OwnPg | undefined;
const collectors: Serve[] = [];

async function serve(db: string): Promise<Serve> {
  const started = await startServe(db, ['--log-level', 'info'], 'built');
  let err = '';
  started.child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return { ...started, stderr: () => err };
}

const lines = (c: Serve): Line[] =>
  c
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);

beforeAll(async () => {
  server = await startOwnPg(PASSWORD);
  if (!server) return;
  collectors.push(await serve(server.url), await serve(server.url));
}, 60_000);

afterAll(async () => {
  for (const c of collectors) c.child.kill('SIGKILL');
  await server?.stop();
});

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hex = (n: number) => n.toString(16).padStart(32, '0');

// Without binaries startOwnPg fails in CI; elsewhere the file is skipped.
describe.skipIf(process.env.CI !== 'true' && !serverBin())(
  'the database killed under two collectors',
  () => {
    it(`survives ${KILLS} SIGKILLs of the postmaster: 503 meanwhile, then resumes, nothing acknowledged lost`, async () => {
      const pgServer = server as OwnPg;
      const [a, b] = collectors as [Serve, Serve];
      const exits: string[] = [];
      for (const c of collectors)
        c.child.once('exit', (code, signal) =>
          exits.push(`${c.url} exited (${code ?? signal}): ${c.stderr().slice(0, 400)}`),
        );
      const acked: number[] = [];
      // Per collector: answers since the last mark, and the slowest answer.
      const stats = new Map<Serve, { ok: number; unavailable: number; other: string[] }>(
        collectors.map((c) => [c, { ok: 0, unavailable: 0, other: [] }]),
      );
      let slowest = 0;
      let seed = 1;
      let stop = false;
      const send = async (c: Serve) => {
        const s = stats.get(c) as { ok: number; unavailable: number; other: string[] };
        while (!stop) {
          const id = seed++;
          const began = Date.now();
          const res = await postJson(c.url, jsonBody(id, 5)).catch(() => undefined);
          await res?.arrayBuffer();
          if (!res) {
            // Only a collector that died drops a connection; the exit is reported by `until`.
            s.other.push('connection failed');
            return;
          }
          slowest = Math.max(slowest, Date.now() - began);
          if (res.status === 200) {
            acked.push(id);
            s.ok++;
          } else if (res.status === 503 && res.headers.get('retry-after')) {
            s.unavailable++;
            await wait(20);
          } else {
            s.other.push(String(res.status));
            await wait(20);
          }
        }
      };
      const senders = collectors.flatMap((c) => [send(c), send(c)]);
      const until = async (done: () => boolean) => {
        while (!done()) {
          if (exits.length > 0) throw new Error(exits.join('; '));
          await wait(10);
        }
      };
      const reset = () => {
        for (const s of stats.values()) {
          s.ok = 0;
          s.unavailable = 0;
        }
      };
      const at = Date.now() - 60_000;
      const loopCall = (c: Serve, i: number) =>
        postJson(
          c.url,
          otlpToolCalls([
            {
              trace: 5_000_000 + i,
              conversation: 'conv-outage',
              input: 'eeeeeeee00000001',
              code: 'FAILED',
              atMs: at + i,
            },
          ]),
        );
      for (let kill = 0; kill < KILLS; kill++) {
        reset();
        await until(() => [...stats.values()].every((s) => s.ok >= 3));
        if (kill === 0) expect((await loopCall(a, 1)).status).toBe(200);
        await pgServer.kill9();
        reset();
        await until(() => [...stats.values()].every((s) => s.unavailable >= 2));
        if (kill === 0) expect((await loopCall(b, 2)).status).toBe(503);
        // Reads say the same: storage unavailable, not an internal error.
        const read = await fetch(`${a.url}/api/tools?since=1h`);
        expect(read.status).toBe(503);
        expect((await fetch(`${b.url}/readyz`)).status).toBe(503);
        await pgServer.start();
        reset();
        await until(() => [...stats.values()].every((s) => s.ok >= 3));
        if (kill === 0) {
          expect((await loopCall(b, 2)).status).toBe(200);
          expect((await loopCall(a, 3)).status).toBe(200);
        }
      }
      stop = true;
      await Promise.all(senders);
      expect(exits).toEqual([]);
      for (const c of collectors) expect((await fetch(`${c.url}/readyz`)).status).toBe(200);
      expect(slowest).toBeLessThan(HANG_MS);
      expect([...stats.values()].flatMap((s) => s.other)).toEqual([]);

      const lost: number[] = [];
      for (const id of acked) {
        const trace = await getJson<{ spans: unknown[] }>(`${b.url}/api/traces/${hex(id)}`);
        if (trace.status !== 200 || trace.body.spans.length !== 5) lost.push(id);
      }
      expect(lost).toEqual([]);
      const flags = await getJson<{
        flags: { kind: string; conversationId?: string; count: number }[];
      }>(`${a.url}/api/flags?since=1d`);
      expect(
        flags.body.flags
          .filter((f) => f.kind === 'identical_retry' && f.conversationId === 'conv-outage')
          .map((f) => f.count),
      ).toEqual([3]);

      for (const c of collectors) {
        const log = lines(c);
        const down = log.filter((l) => l.msg.startsWith('database unreachable'));
        const back = log.filter((l) => l.msg.startsWith('database reachable again'));
        expect(down, c.url).toHaveLength(KILLS);
        expect(back, c.url).toHaveLength(KILLS);
        for (const l of down)
          expect(l.cause?.code, JSON.stringify(l)).toMatch(/^(E[A-Z]+|[0-9A-Z]{5})$/);
        // Nothing else per refused request: the outage's two lines say it all.
        const errors = log.filter(
          (l) => l.level >= 50 && !l.msg.startsWith('database unreachable'),
        );
        expect(errors).toEqual([]);
        expect(`${c.output()}${c.stderr()}`).not.toContain(PASSWORD);
        expect(c.stderr()).not.toMatch(/Warning:|Unhandled/);
      }
      process.stdout.write(
        `\npg outage: ${KILLS} postmaster kills, ${acked.length} batches acknowledged, ${lost.length} lost, slowest answer ${slowest} ms\n`,
      );
    }, 120_000);
  },
);
