// Setup file of every test file (vitest.config.ts): the SQLite storage threads an in-process collector starts
// (writer, reader, checkpointer) load the JavaScript test/built.ts built from these sources at the start of the
// run, not the sources under tsx, whose loader hooks took 0.5 s of CPU in each thread (docs/decisions/0058).
// The code the threads run is the same: esbuild (tsx's own transpiler) writes each source file as it is.
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inject } from 'vitest';
import { startWorkersFromBuilt } from '../src/storage/threads/storage-worker.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder test/built.ts built for this run (built-global.ts). */
    builtPackages: string;
  }
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const built = inject('builtPackages');

startWorkersFromBuilt((url) => {
  if (!url.startsWith('file:')) return undefined;
  const m = /^packages\/(instrument|proxy|collector)\/src\/(.+)\.ts$/.exec(
    relative(ROOT, fileURLToPath(url)),
  );
  return m
    ? pathToFileURL(join(built, 'packages', m[1] as string, 'dist', `${m[2]}.js`)).href
    : undefined;
});
