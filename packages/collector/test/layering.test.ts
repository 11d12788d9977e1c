// The collector's layers (decision 0015), held as a test: which folder may import which. A detector imports
// only the call model; the call model nothing of the collector; storage no detector and, but at its composition
// points, no detection; nothing below the API imports it or the CLI.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Each source file's folder under src/ and the folders its relative imports reach. */
const edges = files(SRC).map((path) => {
  const from = relative(SRC, path);
  const text = readFileSync(path, 'utf8');
  const targets = [...text.matchAll(/from '(\.[^']+)'/g)].map((m) =>
    relative(SRC, join(path, '..', m[1] as string)),
  );
  return { from, folder: from.split('/')[0] as string, targets };
});

const top = (target: string) => target.split('/')[0] as string;

/** Imports of files in `folder` that reach one of `forbidden`, except from `allowed` files. */
function breaches(folder: string, forbidden: string[], allowed: string[] = []): string[] {
  return edges
    .filter((e) => e.folder === folder && !allowed.includes(e.from))
    .flatMap((e) =>
      e.targets.filter((t) => forbidden.includes(top(t))).map((t) => `${e.from} → ${t}`),
    );
}

describe('the collector layers', () => {
  it('keeps detectors pure: they import only the call model', () => {
    expect(
      breaches('detectors', ['storage', 'detection', 'api', 'cli', 'ingest', 'otlp', 'alerts']),
    ).toEqual([]);
  });

  it('keeps the call model free of every stage', () => {
    expect(
      breaches('calls', ['storage', 'detection', 'detectors', 'api', 'cli', 'ingest', 'alerts']),
    ).toEqual([]);
  });

  it('keeps the detection stage out of the API, the CLI and intake', () => {
    expect(breaches('detection', ['api', 'cli', 'ingest', 'alerts'])).toEqual([]);
  });

  it('keeps the API out of storage backends: it reads through the contract', () => {
    expect(
      edges
        .filter((e) => e.folder === 'api')
        .flatMap((e) => e.targets.filter((t) => /^storage\/(sqlite|postgres)\//.test(t))),
    ).toEqual([]);
  });

  it('keeps storage free of detectors, and of the detection stage but where it is composed', () => {
    expect(breaches('storage', ['api', 'cli', 'ingest', 'alerts'])).toEqual([]);
    expect(
      breaches(
        'storage',
        ['detection'],
        [
          'storage/open.ts',
          'storage/sqlite/sqlite-storage.ts',
          'storage/sqlite/writer-worker.ts',
          'storage/sqlite/writer-thread.ts',
          'storage/postgres/pg-storage.ts',
        ],
      ),
    ).toEqual([]);
    expect(breaches('storage', ['detectors'])).toEqual([]);
  });
});
