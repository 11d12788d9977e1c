// V8 flags the collector sets on itself at run time, kept set across worker threads' starts. Making a new
// isolate puts a growth factor under 2 back to 2 (V8's Heap::ConfigureHeap; measured on Node 20: a factor of 1
// set before a Worker started was undone, with or without resource limits, and the HTTP thread's young generation
// then grew to 32 MiB at least once in about ten runs when the flag was set again only on 'online'). Cross-cutting: the memory limiter sets the young generation's growth
// factor (ingest/young-generation.ts), storage starts its threads through `startKeepingFlags`.
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

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
 * which time its heap is made) and, when flags are kept, waits for that before this thread runs anything else,
 * then sets them again. Waiting closes the window in which this thread would allocate with V8's defaults back:
 * the 'online' event comes only once this thread is free, after whatever request it is decoding.
 */
export function startKeepingFlags(start: (started: Int32Array) => Worker): Worker {
  const started = new Int32Array(new SharedArrayBuffer(4));
  const worker = start(started);
  if (kept.size === 0) return worker;
  Atomics.wait(started, 0, 0, START_WAIT_MS);
  setKept();
  // A thread slower than the wait: set again once it is online.
  worker.once('online', setKept);
  return worker;
}
