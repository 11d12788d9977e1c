// Which thread packs a batch's span blocks (decision 0011). Packing costs about the same CPU on either thread.
// In the benchmark's profiles the decoding thread became the bottleneck when it packed everything, and the writer
// was already the busier thread without packing. So the share packed on the decoding thread follows the two
// threads' event-loop utilization: it moves toward the one with room, a step per interval.
import { type EventLoopUtilization, performance } from 'node:perf_hooks';

/** Utilization of both threads since the previous reading, each 0..1. */
export type Readings = () => { here: number; writer: number } | undefined;

const STEP = 0.125;
/** A difference smaller than this is noise: the share stays. */
const MARGIN = 0.03;

export class PackBalance {
  #share = 0.5;
  #credit = 0;
  #writes = 0;
  readonly #every: number;
  readonly #read: Readings;

  constructor(read: Readings, every = 16) {
    this.#read = read;
    this.#every = every;
  }

  /** The share of batches packed on the decoding thread, 0..1. */
  get share(): number {
    return this.#share;
  }

  /** Whether the next batch is packed on the decoding thread: `share` of them, spread evenly. */
  packHere(): boolean {
    if (++this.#writes % this.#every === 0) this.#adjust();
    this.#credit += this.#share;
    if (this.#credit < 1) return false;
    this.#credit -= 1;
    return true;
  }

  #adjust(): void {
    const r = this.#read();
    if (!r) return;
    if (r.here > r.writer + MARGIN) this.#share = Math.max(0, this.#share - STEP);
    else if (r.writer > r.here + MARGIN) this.#share = Math.min(1, this.#share + STEP);
  }
}

/** Readings of this thread and of a worker's, from node's event-loop utilization. */
export function eluReadings(worker: () => EventLoopUtilization | undefined): Readings {
  let here = performance.eventLoopUtilization();
  let writer = worker();
  return () => {
    const nowHere = performance.eventLoopUtilization();
    const nowWriter = worker();
    const last = { here, writer };
    here = nowHere;
    writer = nowWriter;
    if (!nowWriter || !last.writer) return undefined;
    const h = performance.eventLoopUtilization(nowHere, last.here);
    const w = performance.eventLoopUtilization(nowWriter, last.writer);
    // A restarted writer thread counts from zero again: the one reading across the restart is not one.
    if (w.idle < 0 || w.active < 0) return undefined;
    return { here: h.utilization, writer: w.utilization };
  };
}
