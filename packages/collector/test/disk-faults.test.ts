// Real disk faults on a small tmpfs (needs root with mount rights, as on this project's CI machines; skipped
// with the reason printed otherwise): a full disk and a read-only file system never get 200 from ingest;
// they get 503 with Retry-After, nothing acknowledged is lost, and ingest recovers when the fault clears.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import {
  postJson,
  startTestCollector,
  type TestCollector,
  toolBatch,
  traceStored,
} from './harness.js';

function tryMount(dir: string, sizeMb: number): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
}

const mountable = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'toolscope-mount-probe-'));
  const problem = tryMount(probe, 1);
  if (!problem) execFileSync('umount', [probe]);
  rmSync(probe, { recursive: true, force: true });
  if (problem && process.env.CI === 'true') {
    // Mounting is a matter of privileges, not of the file system: CI runs as root and must run these.
    throw new Error(`disk-faults: cannot mount a tmpfs in CI (${problem})`);
  }
  if (problem) console.warn(`disk-faults: skipped, cannot mount a tmpfs here (${problem})`);
  return !problem;
})();

let dir: string | undefined;
let collector: TestCollector | undefined;
afterEach(async () => {
  await collector?.stop().catch(() => undefined);
  collector = undefined;
  if (dir) {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
    } catch {}
    rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  }
});

/** A body big enough that its commit needs fresh pages: 400 spans with 2 KiB attributes. */
const big = (seed: number) => toolBatch(seed, 400, 2048);

describe.skipIf(!mountable)('disk faults (tmpfs)', () => {
  it('answers 503 while the disk is full, loses nothing acknowledged, and recovers when space returns', async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolscope-full-'));
    expect(tryMount(dir, 24)).toBeUndefined();
    collector = await startTestCollector({}, dir);
    const acked: number[] = [];
    for (let seed = 1; seed <= 3; seed++) {
      expect((await postJson(collector.url, big(seed))).status).toBe(200);
      acked.push(seed);
    }
    // Fill what is left of the file system.
    const filler = join(dir, 'filler');
    const chunk = Buffer.alloc(1024 * 1024, 1);
    try {
      for (let i = 0; i < 64; i++) writeFileSync(filler, chunk, { flag: 'a' });
    } catch {}
    const statuses: number[] = [];
    for (let seed = 10; seed < 16; seed++) {
      const res = await postJson(collector.url, big(seed));
      statuses.push(res.status);
      if (res.status === 503) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      // A commit can still fit in a WAL the checkpointer already copied back (SQLite rewinds it): that 200 is
      // a real commit, so it must be stored like any other acknowledged batch.
      if (res.status === 200) acked.push(seed);
    }
    console.log(`disk full: ingest answered ${statuses.join(', ')}`);
    expect(statuses.every((s) => s === 503 || s === 200)).toBe(true);
    expect(statuses).toContain(503);
    // Reads keep working while writes fail.
    expect((await fetch(`${collector.url}/api/tools`)).status).toBe(200);
    rmSync(filler);
    // The exporter re-sends what was refused; now it is stored.
    for (let seed = 10; seed < 16; seed++) {
      if (acked.includes(seed)) continue;
      expect((await postJson(collector.url, big(seed))).status).toBe(200);
      acked.push(seed);
    }
    for (const seed of acked)
      expect(await traceStored(collector.url, seed), String(seed)).toBe(true);
    await collector.stop();
    collector = undefined;
    const db = new Database(join(dir, 'toolscope.db'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  }, 60_000);

  it('refuses to start on a read-only file system with a clear message, and starts once it is writable', async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolscope-ro-'));
    expect(tryMount(dir, 8)).toBeUndefined();
    const db = join(dir, 'toolscope.db');
    collector = await startTestCollector({}, dir);
    expect((await postJson(collector.url, big(1))).status).toBe(200);
    await collector.stop();
    collector = undefined;
    // A file system can only turn read-only here while nothing has a file open for writing (the kernel
    // answers EBUSY otherwise), so the fault is the one a restart meets: the database on read-only media.
    execFileSync('mount', ['-o', 'remount,ro', dir]);
    let err = '';
    const serve = (onListening: (url: string) => void) =>
      runCli(['serve', '--port', '0', '--grpc-port', '0', '--db', db], {
        out: (t) => {
          const m = /listening on (\S+)/.exec(t);
          if (m?.[1]) onListening(m[1]);
        },
        err: (t) => {
          err += t;
        },
        env: {},
        onSignal: (signal, handler) => {
          if (signal === 'SIGTERM') stop = handler;
        },
      });
    let stop: (() => void) | undefined;
    expect(await serve(() => undefined)).toBe(1);
    expect(err).toContain(`cannot open the database ${db} for writing`);
    expect(err).toContain('read-only');
    console.log(`read-only file system: ${err.trim()}`);
    execFileSync('mount', ['-o', 'remount,rw', dir]);
    let url = '';
    let listening!: () => void;
    const started = new Promise<void>((resolve) => {
      listening = resolve;
    });
    const running = serve((u) => {
      url = u;
      listening();
    });
    await started;
    expect((await postJson(url, big(2))).status).toBe(200);
    expect(await traceStored(url, 1)).toBe(true);
    expect(await traceStored(url, 2)).toBe(true);
    stop?.();
    expect(await running).toBe(0);
  }, 60_000);
});
