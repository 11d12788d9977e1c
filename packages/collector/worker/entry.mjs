// Bootstrap of the SQLite writer thread. Plain JavaScript so it loads the same way from sources (tests, `pnpm
// toolscope`, where tsx is registered first) and from the built package.
import { workerData } from 'node:worker_threads';

// First: tell the thread that started this one that its heap is made (which put V8's flags back); it sets the
// ones it keeps again before going on (src/ops/heap-flags.ts).
if (workerData.started) {
  Atomics.store(workerData.started, 0, 1);
  Atomics.notify(workerData.started, 0);
}

if (workerData.source) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.module);
