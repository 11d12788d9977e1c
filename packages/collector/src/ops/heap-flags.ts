// V8 flags the collector sets on itself at run time, kept set across worker threads' starts: starting a worker
// thread puts V8's flags back to their defaults (measured on Node 20: a growth factor set before a Worker was
// made was undone once it came online, with or without resource limits). Cross-cutting: the memory limiter sets
// the young generation's growth factor (ingest/young-generation.ts), storage starts its threads.
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/** The flags set so far, by name, last value wins. */
const kept = new Map<string, string>();

/** Sets a V8 flag (`--name=value`) now and again after every worker thread started through `keepAcross`. */
export function setHeapFlag(flag: string): void {
  kept.set(flag.split('=')[0] as string, flag);
  setFlagsFromString(flag);
}

/** Sets the kept flags again once `worker` is online (its start has put them back). Returns the worker. */
export function keepAcross(worker: Worker): Worker {
  worker.once('online', () => {
    for (const flag of kept.values()) setFlagsFromString(flag);
  });
  return worker;
}
