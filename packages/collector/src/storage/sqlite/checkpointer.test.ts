// A checkpointer thread that died before close() (here: its database cannot be opened; any thread that fails
// to start) must not hold shutdown: close() waited for an 'exit' that had already come, and never returned.
// Two clean-clone runs stopped for good in the auth test's collector stop; this is a way that can happen,
// not a proven cause.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type CheckpointCause, Checkpointer } from './checkpointer.js';

it('closes at once when its thread already exited', async () => {
  const errors: string[] = [];
  const checkpointer = new Checkpointer(
    { path: join('/nonexistent-toolscope-dir', 'x.db'), synchronous: 'NORMAL', intervalMs: 1_000 },
    (message) => errors.push(message),
  );
  // The thread reports its failure, then exits; wait for the report (progress, not a guess of time).
  while (errors.length === 0) await new Promise((r) => setTimeout(r, 10));
  // Then a moment for it to exit. Should it not have yet, close() resolves through its 'exit' anyway: a slow
  // machine can make this pass without exercising the fix, never fail.
  await new Promise((r) => setTimeout(r, 50));
  await checkpointer.close();
  expect(errors[0]).toMatch(/directory does not exist|unable to open/i);
});

it('reports a failed checkpoint once, with SQLite code first in the message and as the cause', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolscope-ckpt-'));
  const path = join(dir, 'not-a-db.db');
  writeFileSync(path, 'this is not a SQLite database, and no checkpoint can read it'.repeat(100));
  const reports: [string, CheckpointCause][] = [];
  const checkpointer = new Checkpointer({ path, synchronous: 'NORMAL', intervalMs: 10 }, (m, c) =>
    reports.push([m, c]),
  );
  while (reports.length === 0) await new Promise((r) => setTimeout(r, 10));
  await checkpointer.close();
  rmSync(dir, { recursive: true, force: true });
  expect(reports).toHaveLength(1);
  expect(reports[0]?.[0]).toMatch(/^SQLITE_NOTADB: /);
  expect(reports[0]?.[1]).toEqual({ code: 'SQLITE_NOTADB', message: expect.any(String) });
});
