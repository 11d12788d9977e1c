#!/usr/bin/env node
// Installed entry point of the `toolscope` CLI: runs the built CLI (`pnpm build` makes dist/). First, before any
// module loads (V8 grows the young generation while they do), the young generation is kept at its initial size:
// `serve` then lets it grow as far as its memory limit allows (dist/ingest/young-generation.js). A user's own heap
// flags win.
import { userShapesHeap } from '@toolscope/proxy/heap-flags';
import { setHeapFlag } from '../dist/ops/heap-flags.js';

if (!userShapesHeap(process.execArgv, process.env.NODE_OPTIONS ?? ''))
  setHeapFlag('--semi-space-growth-factor=1');
const { main } = await import('../dist/cli/main.js');

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`toolscope: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
