// Several collectors opening one new SQLite file at once (two `pnpm start` in one clone, or a restart that
// overlaps the old process) all start: each migration step runs once, under the write lock, whoever takes it.
// Real processes, since one process's connections cannot interleave their synchronous migrations.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/storage/sqlite/schema.js';

const here = dirname(fileURLToPath(import.meta.url));

type Child = { ready: Promise<void>; done: Promise<{ code: number | null; out: string }> };

function child(path: string, go: string): Child {
  const proc = spawn(
    process.execPath,
    [
      '--conditions=@toolscope/source',
      '--import',
      'tsx',
      join(here, 'open-race-child.ts'),
      path,
      go,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let signalReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    signalReady = resolve;
  });
  proc.stdout.on('data', (d: Buffer) => {
    out += d;
    if (out.includes('ready')) signalReady();
  });
  proc.stderr.on('data', (d: Buffer) => {
    out += d;
  });
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    proc.on('exit', (code) => {
      signalReady();
      resolve({ code, out });
    }),
  );
  return { ready, done };
}

describe('collectors opening one new SQLite file at once', () => {
  it('each migrates it or finds it migrated, and none fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolscope-open-race-'));
    try {
      for (const round of [1, 2]) {
        const path = join(dir, `race-${round}.db`);
        const go = join(dir, `go-${round}`);
        const children = [0, 1, 2].map(() => child(path, go));
        // Every child loaded and waiting before any starts: the race is over the migrations, not the loading.
        await Promise.all(children.map((c) => c.ready));
        writeFileSync(go, '');
        const results = await Promise.all(children.map((c) => c.done));
        for (const r of results) {
          expect(r.out).toContain(`migrated ${MIGRATIONS.length}`);
          expect(r.code).toBe(0);
        }
        const db = new Database(path, { readonly: true });
        expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
