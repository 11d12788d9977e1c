// Root test runner: every package's tests, resolved against TypeScript sources.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@toolscope/source'] },
  ssr: { resolve: { conditions: ['@toolscope/source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    // Two files at a time on the 2-core machines this runs on (vitest's default keeps one core free, which
    // made the suite take the sum of its files); the tests wait on progress, not on wall-clock guesses.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
