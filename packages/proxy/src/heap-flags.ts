// The V8 heap settings the proxy gives its own process, set before its modules load: a young generation kept at
// its initial size and an old generation collected before it grows far, so a busy proxy stays small. A user's
// own heap flags win.
import { setFlagsFromString } from 'node:v8';

/**
 * What is set. `--semi-space-growth-factor=1`: the young generation stays at its initial size instead of
 * doubling to two 16 MB semi-spaces (V8 reads the factor each time it would grow it, so it takes effect at run
 * time, unlike `--max-semi-space-size`, read once when the heap is made). `--heap-growing-percent=10`: after a
 * full collection the old generation may grow by 10 % (plus V8's minimum step) before the next, not by the up
 * to 4 × V8 allows on a machine with memory to spare (also read at each collection).
 */
export const HEAP_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=10'] as const;

// Any of these on the command line or in NODE_OPTIONS means the user chose the heap's shape.
const USER_SAYS = /semi[-_]space|heap[-_]growing|optimize[-_]for[-_]size|max[-_]heap[-_]size/;

/** Whether Node's own command line or NODE_OPTIONS already says how the heap grows. */
export function userShapesHeap(execArgv: readonly string[], nodeOptions: string): boolean {
  return execArgv.some((a) => USER_SAYS.test(a)) || USER_SAYS.test(nodeOptions);
}

/** What `limitHeapGrowth` did: the flags set, or why none were. */
export type HeapFlagsOutcome =
  | { applied: readonly string[]; reason?: never }
  | { applied: readonly []; reason: 'user-flags' };

/**
 * Sets `HEAP_FLAGS` on this process unless `execArgv` or `nodeOptions` already shape the young generation.
 * Called first by the bin (before the rest of the proxy loads) and again, harmlessly, by `main`.
 */
export function limitHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): HeapFlagsOutcome {
  if (userShapesHeap(execArgv, nodeOptions)) return { applied: [], reason: 'user-flags' };
  for (const flag of HEAP_FLAGS) setFlagsFromString(flag);
  return { applied: HEAP_FLAGS };
}
