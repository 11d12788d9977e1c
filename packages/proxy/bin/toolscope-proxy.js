#!/usr/bin/env node
// Installed entry point of `toolscope-proxy`: runs the built CLI (`pnpm build` makes dist/).
import { main } from '../dist/cli.js';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `${JSON.stringify({ level: 'fatal', msg: 'toolscope-proxy failed', cause: error instanceof Error ? error.message : String(error) })}\n`,
    );
    process.exit(1);
  },
);
