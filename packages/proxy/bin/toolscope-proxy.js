#!/usr/bin/env node
// Installed entry point of `toolscope-proxy`: sets the proxy's V8 heap flags, then loads and runs the built CLI
// (`pnpm build` makes dist/). The flags come first because the young generation grows while modules load.
import { limitHeapGrowth } from '../dist/heap-flags.js';

limitHeapGrowth();
const { main } = await import('../dist/cli.js');

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `${JSON.stringify({ level: 'fatal', msg: 'toolscope-proxy failed', cause: error instanceof Error ? error.message : String(error) })}\n`,
    );
    process.exit(1);
  },
);
