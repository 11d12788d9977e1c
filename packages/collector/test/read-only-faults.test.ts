// A database that turns read-only under the running collector. Remounting a file system read-only is refused
// while files are open for writing (disk-faults.test.ts covers the read-only restart instead), but the
// immutable flag (`chattr +i`) is enforced by the kernel on files that are already open, even for root: writes
// to the database and its WAL fail with EPERM while reads still work. Ingest must answer 503 (never 200), keep
// everything it acknowledged, and store again once the flag is cleared. Skipped, with the reason printed,
// where the file system has no immutable flag.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  postJson,
  startTestCollector,
  type TestCollector,
  toolBatch,
  traceStored,
} from './harness.js';

const chattr = (flag: '+i' | '-i', files: string[]) =>
  execFileSync('chattr', [flag, ...files], { stdio: 'pipe' });

const immutableFlag = (() => {
  const probeDir = mkdtempSync(join(tmpdir(), 'toolscope-chattr-probe-'));
  const probe = join(probeDir, 'probe');
  writeFileSync(probe, 'x');
  let problem: string | undefined;
  try {
    chattr('+i', [probe]);
    chattr('-i', [probe]);
  } catch (error) {
    problem = error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
  rmSync(probeDir, { recursive: true, force: true });
  // Only the file system's own answer excuses a skip in CI: no immutable flag on this kind of file system.
  const fileSystems = /not supported|inappropriate ioctl/i;
  if (problem && process.env.CI === 'true' && !fileSystems.test(problem)) {
    throw new Error(`read-only faults: cannot set the immutable flag in CI (${problem})`);
  }
  if (problem) console.warn(`read-only faults: skipped, no immutable flag here (${problem})`);
  return !problem;
})();

let dir: string | undefined;
let collector: TestCollector | undefined;
let locked: string[] = [];
afterEach(async () => {
  // Clear the flag first, or neither the collector's files nor the folder can be removed.
  if (locked.length > 0) chattr('-i', locked);
  locked = [];
  await collector?.stop().catch(() => undefined);
  collector = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const batch = (seed: number) => toolBatch(seed, 200, 512);

describe.skipIf(!immutableFlag)('a database made read-only while the collector runs', () => {
  it('answers 503 while its files are immutable, keeps what it acknowledged, and recovers', async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolscope-ro-live-'));
    collector = await startTestCollector({}, dir);
    const { url, dbPath } = collector;
    const acked: number[] = [];
    for (let seed = 1; seed <= 3; seed++) {
      expect((await postJson(url, batch(seed))).status).toBe(200);
      acked.push(seed);
    }
    // The database and its WAL, not the -shm index: SQLite maps that file into memory, and a mapped page that
    // cannot be written is a SIGBUS, not an error code (a plain better-sqlite3 process died of it here).
    locked = [dbPath, `${dbPath}-wal`];
    chattr('+i', locked);
    const statuses: number[] = [];
    for (let seed = 10; seed < 16; seed++) {
      const res = await postJson(url, batch(seed));
      statuses.push(res.status);
      if (res.status === 503) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    console.log(`read-only database: ingest answered ${statuses.join(', ')}`);
    expect(statuses).toEqual([503, 503, 503, 503, 503, 503]);
    // Reads keep working while writes fail, and what was acknowledged is still there.
    const tools = await fetch(`${url}/api/tools?since=1h`);
    expect(tools.status).toBe(200);
    for (const seed of acked) expect(await traceStored(url, seed), String(seed)).toBe(true);

    chattr('-i', locked);
    locked = [];
    // The exporter re-sends what was refused; now it is stored.
    for (let seed = 10; seed < 16; seed++) {
      expect((await postJson(url, batch(seed))).status).toBe(200);
      acked.push(seed);
    }
    for (const seed of acked) expect(await traceStored(url, seed), String(seed)).toBe(true);
    await collector.stop();
    collector = undefined;
    const db = new Database(dbPath, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const spans = db.prepare('SELECT count(*) AS n FROM tool_calls').get() as { n: number };
    db.close();
    // 9 batches of 200 tool spans: the 3 before and the 6 re-sent after; none of the refused ones twice.
    expect(spans.n).toBe(9 * 200);
  }, 60_000);
});
