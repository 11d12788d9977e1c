// The collector's stages (docs/decisions/0037), held as a test: which folder may import which. Receive (otlp/,
// ingest/, the receivers in api/) → process (process/) → detect (detection/, with the pure rules in detectors/)
// → store (storage/), over a model every stage shares (calls/, contracts/, aggregation/, and the decoded span,
// otlp/model.ts). Storage persists and reads: it imports the model and nothing of any stage, with no exception;
// the stages it runs inside a batch's transaction reach it through the port its contract defines, wired by the
// composition root (pipeline.ts, write-stages.ts, collector.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.startsWith('test-')
      ? [path]
      : [];
  });
}

/** Each source file's folder under src/ (the file itself at the root) and the files its relative imports reach. */
const edges = files(SRC).map((path) => {
  const from = relative(SRC, path);
  const text = readFileSync(path, 'utf8');
  const targets = [...text.matchAll(/from '(\.[^']+)'/g)].map((m) =>
    relative(SRC, join(path, '..', m[1] as string)).replace(/\.js$/, '.ts'),
  );
  return { from, folder: from.split('/')[0] as string, targets };
});

const top = (target: string) => target.split('/')[0] as string;

/** The shared model: what every stage may import. */
const MODEL = ['calls', 'contracts', 'aggregation'];
/** The decoded span, the receive stage's output that the later stages take in (as the OTel Collector's pdata). */
const SPAN_MODEL = 'otlp/model.ts';
/**
 * What any folder may use: the error table (errors.ts), how a cause is logged without secrets, and the V8 flags
 * kept across worker threads' starts (storage starts threads, the memory limiter sets a flag).
 */
const CROSS_CUTTING = ['errors.ts', 'ops/logger.ts', 'ops/heap-flags.ts'];

/** Imports from `folder` that reach anything but `allowed` folders (or files), its own folder aside. */
function outside(folder: string, allowed: string[]): string[] {
  return edges
    .filter((e) => e.folder === folder)
    .flatMap((e) =>
      e.targets
        .filter((t) => top(t) !== folder && ![...allowed, ...CROSS_CUTTING].includes(t))
        .filter((t) => !allowed.includes(top(t)))
        .map((t) => `${e.from} → ${t}`),
    );
}

/** Imports from `folder` of storage's backends (sqlite/, postgres/) or of its SQL: only the contract is public. */
const intoBackends = (folder: string) =>
  edges
    .filter((e) => e.folder === folder)
    .flatMap((e) => e.targets.filter((t) => /^storage\/(sqlite|postgres|sql)\//.test(t)))
    .map((t) => `${folder} → ${t}`);

describe('the collector stages', () => {
  it('keeps the model free of every stage', () => {
    expect(outside('calls', [])).toEqual([]);
    expect(outside('aggregation', ['calls'])).toEqual([]);
    expect(outside('contracts', ['calls', 'aggregation', SPAN_MODEL])).toEqual([]);
  });

  it('keeps storage to persisting and reading: it imports the model and no stage', () => {
    expect(outside('storage', [...MODEL, SPAN_MODEL])).toEqual([]);
  });

  it('keeps the process stage to the model and the storage contract it produces for', () => {
    expect(outside('process', [...MODEL, SPAN_MODEL, 'storage'])).toEqual([]);
    expect(intoBackends('process')).toEqual([]);
  });

  it('keeps detectors pure: they import only the model', () => {
    expect(outside('detectors', [...MODEL, 'format.ts'])).toEqual([]);
  });

  it('keeps the detection stage to its rules, the model and the storage contract', () => {
    expect(outside('detection', [...MODEL, 'detectors', 'storage'])).toEqual([]);
    expect(intoBackends('detection')).toEqual([]);
  });

  it('keeps intake to the receive stage: decoding, the queue, the storage contract it hands batches to', () => {
    expect(outside('otlp', [])).toEqual([]);
    expect(outside('ingest', [...MODEL, 'otlp', 'ops', 'storage'])).toEqual([]);
  });

  it('keeps the API, the CLI and alerts out of storage backends and the process stage: they read through the contract', () => {
    expect([...intoBackends('api'), ...intoBackends('cli'), ...intoBackends('alerts')]).toEqual([]);
    expect(
      outside('api', [
        ...MODEL,
        SPAN_MODEL,
        'storage',
        'detection',
        'detectors',
        'ingest',
        'ops',
        'otlp',
        'format.ts',
        'version.ts',
        // The fixtures a route serves (api/fixture-routes.ts) are read from the store, as the CLI's.
        'fixtures',
      ]),
    ).toEqual([]);
  });
});
