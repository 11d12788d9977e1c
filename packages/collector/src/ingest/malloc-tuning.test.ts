// glibc's malloc keeps its heap's high-water mark unless buffers of 64 KiB are mapped on their own: the advice
// `serve` logs, the image that follows it, and the allocator behaviour both rest on, shown on this machine's
// Node and C library (docs/decisions/0072-malloc-keeps-the-flood.md).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../ops/logger.js';
import { BodyBudget } from './body-budget.js';
import { MALLOC_ENV, mallocAdvice, mallocContext } from './malloc-tuning.js';
import { startMemoryLimiter } from './memory-limit.js';
import type { WriteQueue } from './write-queue.js';

const glibcLinux = { platform: 'linux', glibc: '2.36' };

describe('mallocAdvice', () => {
  it('names the setting on Linux with glibc when it is missing, and nothing once it is there', () => {
    const advice = mallocAdvice({ ...glibcLinux, env: {} });
    expect(advice).toContain('MALLOC_MMAP_THRESHOLD_=32768');
    expect(advice).toContain('docs/reliability.md');
    // Any value the operator chose is theirs.
    expect(
      mallocAdvice({ ...glibcLinux, env: { MALLOC_MMAP_THRESHOLD_: '131072' } }),
    ).toBeUndefined();
    expect(mallocAdvice({ ...glibcLinux, env: { ...MALLOC_ENV } })).toBeUndefined();
  });

  it('says nothing where the C library is not glibc', () => {
    expect(mallocAdvice({ platform: 'linux', glibc: undefined, env: {} })).toBeUndefined();
    expect(mallocAdvice({ platform: 'darwin', glibc: undefined, env: {} })).toBeUndefined();
  });
});

describe('the collector image', () => {
  it('runs the collector with the setting the advice names', () => {
    const dockerfile = readFileSync(new URL('../../../../Dockerfile', import.meta.url), 'utf8');
    const stage = dockerfile.slice(dockerfile.indexOf('AS collector'));
    expect(stage.length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(MALLOC_ENV))
      expect(stage).toMatch(new RegExp(`^ENV .*\\b${name}=${value}\\b`, 'm'));
  });
});

describe('pnpm start', () => {
  it('runs the collector with the setting too', () => {
    const pkg = JSON.parse(
      readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8'),
    ) as { scripts: Record<string, string> };
    const assignments = Object.entries(MALLOC_ENV).map(([name, value]) => `${name}=${value}`);
    expect(pkg.scripts.start).toContain(
      `${assignments.join(' ')} node packages/collector/bin/toolscope.js serve`,
    );
  });
});

describe('startMemoryLimiter', () => {
  it('logs the advice once at start, at info, and not when the setting is there', () => {
    const lines = (env: Record<string, string | undefined>) => {
      const out: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          out.push(String(chunk));
          done();
        },
      });
      const limiter = startMemoryLimiter({
        limitBytes: 200 * 1024 * 1024,
        budget: new BodyBudget(1024),
        queue: { pendingSpans: 0 } as WriteQueue,
        log: createLogger('info', sink),
        malloc: { ...glibcLinux, env },
      });
      limiter.stop();
      return out.map((line) => JSON.parse(line) as { level: number; msg: string });
    };
    const advised = lines({}).filter((l) => l.msg.includes('MALLOC_MMAP_THRESHOLD_'));
    expect(advised).toHaveLength(1);
    expect(advised[0]?.level).toBe(30);
    expect(lines({ ...MALLOC_ENV }).filter((l) => l.msg.includes('MALLOC_'))).toEqual([]);
  });
});

// 800 buffers of 48 KiB (37.5 MiB), a size glibc serves from its heap by default, written and dropped but for every sixteenth, then collected until V8 has freed
// them (its sweeper frees array buffers on a thread of its own, after the collection): the resident set that
// stays, in MiB.
const FRAGMENT = `
let bufs = [];
for (let i = 0; i < 800; i++) bufs.push(Buffer.allocUnsafeSlow(49152).fill(i & 255));
const kept = bufs.filter((_, i) => i % 16 === 0);
bufs = undefined;
const settle = () => {
  gc();
  if (process.memoryUsage().arrayBuffers > 60 * 49152) return setTimeout(settle, 10);
  setTimeout(() => console.log(Math.round(process.memoryUsage.rss() / 1048576), kept.length), 10);
};
settle();
`;

describe('glibc malloc with and without the setting', () => {
  it('keeps the dropped buffers resident without it and gives them back with it', () => {
    const c = mallocContext();
    if (c.platform !== 'linux' || c.glibc === undefined) {
      expect(mallocAdvice({ ...c, env: {} })).toBeUndefined();
      return;
    }
    const residentMiB = (env: Record<string, string>) => {
      const base = { ...process.env };
      delete base.MALLOC_MMAP_THRESHOLD_;
      const out = execFileSync(process.execPath, ['--expose-gc', '-e', FRAGMENT], {
        env: { ...base, ...env, NODE_OPTIONS: '' },
        encoding: 'utf8',
        // Its own collections end it within a second here; a runtime that never freed the buffers would not.
        timeout: 60_000,
      });
      const [mib, kept] = out.trim().split(' ').map(Number);
      expect(kept).toBe(50);
      return mib as number;
    };
    const without = residentMiB({});
    const tuned = residentMiB({ ...MALLOC_ENV });
    // 35 MiB were dropped: without the setting most of them stay in malloc's heap.
    expect(without - tuned).toBeGreaterThan(25);
  });
});
