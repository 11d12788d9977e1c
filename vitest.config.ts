// Root test runner: every package's tests, resolved against TypeScript sources.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@toolscope/source'] },
  ssr: { resolve: { conditions: ['@toolscope/source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
