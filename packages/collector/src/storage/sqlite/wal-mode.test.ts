// The switch to WAL waits out another connection's lock on a new file instead of failing at once: a thread holds
// the file's exclusive lock, the switch without time to wait fails with SQLITE_BUSY (so the lock is real), and
// the switch as the collector makes it succeeds once the thread lets go.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { useWal } from './wal-mode.js';

const sqlitePath = createRequire(import.meta.url).resolve('better-sqlite3');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('useWal', () => {
  it('waits for another connection that holds the new file, and fails at once without time to wait', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolscope-wal-'));
    dirs.push(dir);
    const path = join(dir, 'new.db');
    const flag = new Int32Array(new SharedArrayBuffer(4));
    // The holder takes the exclusive lock, says so, waits for the flag, then holds it 100 ms more.
    const holder = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const Database = require(workerData.sqlitePath);
       const db = new Database(workerData.path);
       db.exec('BEGIN EXCLUSIVE');
       parentPort.postMessage('locked');
       Atomics.wait(workerData.flag, 0, 0);
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
       db.exec('COMMIT');
       db.close();`,
      { eval: true, workerData: { sqlitePath, path, flag } },
    );
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    await new Promise((resolve, reject) => {
      holder.once('message', resolve);
      holder.once('error', reject);
    });
    const db = new Database(path);
    try {
      db.pragma('busy_timeout = 0');
      expect(() => useWal(db, 0)).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      useWal(db);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
      await exited;
    }
  });
});
