#!/usr/bin/env node
// Installed entry point of the `toolscope` CLI: runs the built CLI (`pnpm build` makes dist/).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`toolscope: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
