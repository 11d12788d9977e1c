// Bootstrap of the SQLite writer thread. Plain JavaScript so it loads the same way from sources (tests, `pnpm
// toolscope`, where tsx is registered first) and from the built package.
import { workerData } from 'node:worker_threads';

if (workerData.source) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.module);
