// glibc's malloc keeps its heap's high-water mark unless buffers of 32 KiB and up are mapped on their own: the advice
// `serve` logs, the image that follows it, and the allocator behaviour both rest on, shown on this machine's
// Node and C library (docs/decisions/0072-malloc-keeps-the-flood.md).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../ops/logger.js';
import { logMallocAdvice, MALLOC_ENV, mallocAdvice, mallocContext } from './malloc-tuning.js';

const glibcLinux = { platform: 'linux', glibc: true };

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
    // An empty value sets nothing.
    expect(mallocAdvice({ ...glibcLinux, env: { MALLOC_MMAP_THRESHOLD_: '' } })).toContain('32768');
  });

  it('says nothing where the variable would change nothing: another allocator, or glibc tunables', () => {
    const env = (e: Record<string, string>) => mallocAdvice({ ...glibcLinux, env: e });
    expect(env({ LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' })).toBeUndefined();
    expect(env({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' })).toBeUndefined();
    expect(env({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })).toContain('32768');
  });

  it('says nothing where the C library is not glibc', () => {
    expect(mallocAdvice({ platform: 'linux', glibc: false, env: {} })).toBeUndefined();
    expect(mallocAdvice({ platform: 'darwin', glibc: false, env: {} })).toBeUndefined();
  });
});

describe('the collector image', () => {
  it('runs the collector with the setting the advice names', () => {
    const dockerfile = readFileSync(new URL('../../../../Dockerfile', import.meta.url), 'utf8');
    const at = dockerfile.indexOf('AS collector');
    expect(at).toBeGreaterThanOrEqual(0);
    const stage = dockerfile.slice(at);
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

describe('logMallocAdvice', () => {
  it('logs the advice at info, and nothing when the setting is there', () => {
    const lines = (env: Record<string, string | undefined>) => {
      const out: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          out.push(String(chunk));
          done();
        },
      });
      logMallocAdvice(createLogger('info', sink), 200 * 1024 * 1024, { ...glibcLinux, env });
      return out.map(
        (line) => JSON.parse(line) as { level: number; msg: string; limitMiB: number },
      );
    };
    const advised = lines({});
    expect(advised).toHaveLength(1);
    expect(advised[0]).toMatchObject({ level: 30, limitMiB: 200 });
    expect(advised[0]?.msg).toContain('MALLOC_MMAP_THRESHOLD_=32768');
    expect(lines({ ...MALLOC_ENV })).toEqual([]);
  });
});

// 800 buffers of 48 KiB (37.5 MiB), a size glibc serves from its heap by default, written and dropped but for
// every sixteenth, then collected until V8 has freed them (its sweeper frees array buffers on a thread of its
// own, after the collection): the resident set that stays, in MiB.
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

const onGlibc = mallocContext().glibc;

describe('glibc malloc with and without the setting', () => {
  // Shown where it applies; elsewhere the advice is not given (above).
  it.skipIf(!onGlibc)(
    'keeps the dropped buffers resident without it and gives them back with it',
    () => {
      const residentMiB = (env: Record<string, string>) => {
        // The test's own allocator settings, if any, are not the child's.
        const base = Object.fromEntries(
          Object.entries(process.env).filter(
            ([name]) =>
              !name.startsWith('MALLOC_') && name !== 'GLIBC_TUNABLES' && name !== 'LD_PRELOAD',
          ),
        );
        const out = execFileSync(process.execPath, ['--expose-gc', '-e', FRAGMENT], {
          env: { ...base, ...env, NODE_OPTIONS: '' },
          encoding: 'utf8',
          // Its own collections end it within a second here; a runtime that never freed the buffers would not.
          timeout: 8_000,
        });
        const [mib, kept] = out.trim().split(' ').map(Number);
        expect(kept).toBe(50);
        return mib as number;
      };
      const without = residentMiB({});
      const tuned = residentMiB({ ...MALLOC_ENV });
      // 35 MiB were dropped: without the setting most of them stay in malloc's heap.
      expect(without - tuned).toBeGreaterThan(25);
    },
  );
});
