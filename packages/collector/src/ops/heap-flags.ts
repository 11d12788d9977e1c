// V8 flags the collector sets on itself at run time, kept set across worker threads' starts. Making a new
// isolate puts a growth factor under 2 back to 2 (V8's Heap::ConfigureHeap; measured on Node 20: a factor of 1
// set before a Worker started was undone, with or without resource limits, and the HTTP thread's young generation
// then grew to 32 MiB at least once in about ten runs when the flag was set again only on 'online'). Cross-cutting: the memory limiter sets the young generation's growth
// factor (ingest/young-generation.ts), storage starts its threads through `startKeepingFlags`.
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import { userShapesHeap } from '@toolscope/proxy/heap-flags';

/** The flags set so far, by name, last value wins. */
const kept = new Map<string, string>();

/** How long the starting thread waits for a new thread's first line; past it, the flags are set again when the thread comes online. */
const START_WAIT_MS = 1_000;

/** Sets a V8 flag (`--name=value`) now and again after every worker thread started through `startKeepingFlags`. */
export function setHeapFlag(flag: string): void {
  kept.set(flag.split('=')[0] as string, flag);
  setFlagsFromString(flag);
}

const setKept = () => {
  for (const flag of kept.values()) setFlagsFromString(flag);
};

/**
 * Starts a worker thread (`start` hands `started` to it: its entry stores 1 and notifies at its first line, by
 * which time its heap is made) and, when flags are kept or `semiSpaceMb` set, waits for that before this thread
 * runs anything else, then sets them again. Waiting closes the window in which this thread would allocate with
 * V8's defaults back: the 'online' event comes only once this thread is free, after whatever request it is
 * decoding.
 *
 * `semiSpaceMb`: the size the new thread's semi-spaces start at, in MiB. The growth factor the HTTP thread's cap
 * sets (ingest/young-generation.ts) is V8's, so the process's: at 1 every other thread's young generation stays
 * at the size V8 starts it at (2 MiB semi-spaces on Node 20), whatever its resource limits allow (measured: the SQLite writer,
 * allowed 4 MiB of young generation, scavenged every 1.1 MiB and promoted most of each write;
 * docs/decisions/0074-writer-young-generation-from-its-start.md). `--min-semi-space-size` is read once, when a
 * heap is made, so it is set for this start only. A user's own heap flags win: then it is not set (nor put back).
 */
export function startKeepingFlags(
  start: (started: Int32Array) => Worker,
  semiSpaceMb?: number,
): Worker {
  const started = new Int32Array(new SharedArrayBuffer(4));
  const sized =
    semiSpaceMb !== undefined && !userShapesHeap(process.execArgv, process.env.NODE_OPTIONS ?? '');
  if (sized) setFlagsFromString(`--min-semi-space-size=${semiSpaceMb}`);
  let worker: Worker;
  try {
    worker = start(started);
  } catch (error) {
    // A thread that did not start must not leave its size to the ones started after it.
    if (sized) setFlagsFromString('--min-semi-space-size=0');
    throw error;
  }
  if (kept.size === 0 && !sized) return worker;
  Atomics.wait(started, 0, 0, START_WAIT_MS);
  // V8's default (0: its own starting size) for the threads started after; one slower than the wait gets it too.
  if (sized) setFlagsFromString('--min-semi-space-size=0');
  setKept();
  // A thread slower than the wait: set again once it is online.
  worker.once('online', setKept);
  return worker;
}
