// The HTTP thread's young generation, held to a size at run time. V8 doubles it from two 1 MiB semi-spaces to
// two 16 MiB ones under an allocation rate like ingest's, and keeps it: 32 MiB of the process's resident set for
// about 3 MiB in use (decision 0053). `--max-semi-space-size` is read once, when the heap is made, so a process
// can set it only on Node's command line; `--semi-space-growth-factor` is read each time V8 would grow the young
// generation (decision 0024), so a growth factor of 1 once the cap is reached stops it there, and the default
// factor below the cap lets it grow back after V8 shrinks it. The bin sets the factor to 1 before anything loads
// (bin/toolscope.js), so the young generation starts small and grows only as far as this allows. Starting a
// worker thread puts V8's flags back to their defaults (measured: the storage writer, started on the first
// write, undid the factor and the young generation grew to 32 MiB): storage's threads, the only ones the collector
// starts, set it again as they start (ops/heap-flags.ts), so a check sets it only when it changes.
// docs/reliability.md says what the memory limit bounds.
import { getHeapSpaceStatistics } from 'node:v8';
import { userShapesHeap } from '@toolscope/proxy/heap-flags';
import { setHeapFlag } from '../ops/heap-flags.js';

/** V8's default growth factor (flag-definitions.h: `semi_space_growth_factor`, 2). */
const DEFAULT_FACTOR = 2;

/** The young generation (both semi-spaces) this thread holds now, in bytes. */
export function youngGenerationBytes(): number {
  for (const space of getHeapSpaceStatistics())
    if (space.space_name === 'new_space') return space.space_size;
  return 0;
}

export type YoungGenerationOptions = {
  /** The size the young generation (both semi-spaces) may reach; undefined: V8's own maximum. */
  maxBytes: number | undefined;
  /** Reads the young generation's size (default: this thread's, from V8). */
  read?: () => number;
  /** Sets a V8 flag (default: `setHeapFlag`, which keeps it across worker starts). */
  setFlag?: (flag: string) => void;
  /** Whether the user's own Node options shape the heap: then nothing is set (default: from execArgv and NODE_OPTIONS). */
  userFlags?: boolean;
};

/**
 * Holds the young generation at or under `maxBytes`: `check()` (the memory limiter calls it every tick and on a
 * request's arrival) stops its growth once there and lets it grow below. Without a cap the default factor is
 * put back once, undoing the bin's early setting (a worker's start would too): V8 then grows it as it decides.
 */
export class YoungGenerationCap {
  readonly #o: YoungGenerationOptions;
  readonly #read: () => number;
  readonly #set: (flag: string) => void;
  readonly #userFlags: boolean;
  /** The growth factor last set; setHeapFlag keeps it across the threads' starts. */
  #factor: number | undefined;

  constructor(o: YoungGenerationOptions) {
    this.#o = o;
    this.#read = o.read ?? youngGenerationBytes;
    this.#set = o.setFlag ?? setHeapFlag;
    this.#userFlags =
      o.userFlags ?? userShapesHeap(process.execArgv, process.env.NODE_OPTIONS ?? '');
    this.check();
  }

  check(): void {
    if (this.#userFlags) return;
    const max = this.#o.maxBytes;
    const factor = max === undefined || this.#read() < max ? DEFAULT_FACTOR : 1;
    if (factor === this.#factor) return;
    this.#factor = factor;
    this.#set(`--semi-space-growth-factor=${factor}`);
  }
}
