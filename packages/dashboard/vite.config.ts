// Builds the dashboard into the collector package, which serves it: the UI ships with the server that
// answers its API, and the collector never depends on this package.
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  resolve: { conditions: ['@toolscope/source', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../collector/dashboard', import.meta.url)),
    emptyOutDir: true,
    // No inline scripts or styles: the collector's Content-Security-Policy allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
});
