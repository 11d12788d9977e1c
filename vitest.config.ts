// Root test runner: every package's tests, resolved against TypeScript sources.
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './scripts/longest-first-sequencer.js';

export default defineConfig({
  resolve: { conditions: ['@toolscope/source'] },
  ssr: { resolve: { conditions: ['@toolscope/source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    // The packages built once per run (packages/collector/test/built.ts), for the storage threads of the
    // collectors tests start in their own process (built-workers.ts, docs/decisions/0058).
    // PostgreSQL test databases named for the run and dropped at its end (pg-databases-global.ts).
    globalSetup: [
      'packages/collector/test/built-global.ts',
      'packages/collector/test/pg-databases-global.ts',
    ],
    setupFiles: ['packages/collector/test/built-workers.ts'],
    // Two files at a time on the 2-core machines this runs on (vitest's default keeps one core free, which
    // made the suite take the sum of its files). Three were measured: no faster in clean-clone runs on a
    // machine already full, each file slower (docs/decisions/0067). The tests wait on progress, not on
    // wall-clock guesses.
    maxWorkers: 2,
    // The files of a worker share its modules instead of importing them again each (119 s of the suite's time
    // in imports, 17 s shared: docs/decisions/0066). A test that changes process-wide state (the environment,
    // a global listener) puts it back when it ends.
    isolate: false,
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 20_000,
    // `toolscope serve` from sources runs under tsx, whose loader threads take about 70 MiB more than the built
    // collector the default memory limit (200 MiB) is for; the spawned collectors inherit this instead.
    env: { TOOLSCOPE_MEMORY_LIMIT_MIB: '320' },
    hookTimeout: 30_000,
  },
});
