// A checkpointer thread that died before close() (here: its database cannot be opened; any thread that fails
// to start) must not hold shutdown: close() waited for an 'exit' that had already come, and never returned.
// Two clean-clone runs stopped for good in the auth test's collector stop; this is a way that can happen,
// not a proven cause.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { Checkpointer } from './checkpointer.js';

it('closes at once when its thread already exited', async () => {
  const errors: string[] = [];
  const checkpointer = new Checkpointer(
    { path: join('/nonexistent-toolscope-dir', 'x.db'), synchronous: 'NORMAL', intervalMs: 1_000 },
    (message) => errors.push(message),
  );
  // The thread reports its failure, then exits; wait for the report (progress, not a guess of time).
  while (errors.length === 0) await new Promise((r) => setTimeout(r, 10));
  // Then a moment for it to exit. Should it not have yet, close() resolves through its 'exit' anyway: a slow
  // machine can make this pass without exercising the fix, never fail.
  await new Promise((r) => setTimeout(r, 50));
  await checkpointer.close();
  expect(errors[0]).toMatch(/directory does not exist|unable to open/i);
});
