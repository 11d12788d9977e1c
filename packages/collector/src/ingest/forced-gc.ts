// A full garbage collection on demand, for the memory limiter (memory-limiter.ts). Node offers one only with
// --expose-gc; setting the flag at run time exposes `gc` to contexts created afterwards (Jest's leak detector
// does the same), so one new context hands it over without the process's own global changing.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The runtime's full collection, or undefined when it cannot be had (the limiter then only refuses). */
export function forcedGc(): (() => void) | undefined {
  const existing: unknown = Reflect.get(globalThis, 'gc');
  if (typeof existing === 'function') return () => existing();
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? () => gc() : undefined;
  } catch {
    return undefined;
  }
}
