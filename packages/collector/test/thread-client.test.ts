// ThreadClient (storage/threads/thread-client.ts) with real worker threads: a thread that dies fails only what it
// was sent, is logged once with its cause, and a request sent after its death goes to a new thread, whatever the
// dead one's late 'exit' does; close() ends the thread even when its last request fails.
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadClient } from '../src/storage/threads/thread-client.js';

type Body = { echo?: number; throw?: string; fail?: boolean };

/** A thread that echoes, throws uncaught (an 'error' before its 'exit'), or answers a failure. */
const WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.throw) throw new Error(m.throw);
  if (m.fail) parentPort.postMessage({ id: m.id, ok: false, message: 'refused', code: 'E_REFUSED' });
  else parentPort.postMessage({ id: m.id, ok: true, value: m.echo });
});`;

const started: Worker[] = [];
const start = () => {
  const worker = new Worker(WORKER, { eval: true });
  started.push(worker);
  return worker;
};
const warnings: string[] = [];
const heard = (warning: Error) => warnings.push(warning.message);

afterEach(async () => {
  process.off('warning', heard);
  warnings.length = 0;
  for (const worker of started.splice(0)) await worker.terminate();
});

describe('ThreadClient', () => {
  it('sends a request made after a thread died to a new thread, which the dead one cannot fail', async () => {
    process.on('warning', heard);
    const client = new ThreadClient<Body>(start);
    expect(await client.send({ echo: 1 })).toBe(1);
    const exited = new Promise((resolve) => started[0]?.once('exit', resolve));
    // Sent as soon as the death is known ('error'), before the dead thread's 'exit'.
    const after = await client.send({ throw: 'boom' }).then(
      () => undefined,
      (error: Error) => [error.message, client.send({ echo: 2 })] as const,
    );
    expect(after?.[0]).toBe('boom');
    await exited;
    expect(await after?.[1]).toBe(2);
    expect(started).toHaveLength(2);
    expect(warnings).toEqual(['toolscope: a storage thread stopped: boom']);
    await client.close();
  });

  it('ends the thread on close even when the last request fails', async () => {
    process.on('warning', heard);
    const client = new ThreadClient<Body>(start);
    expect(await client.send({ echo: 1 })).toBe(1);
    const exited = new Promise<number>((resolve) => started[0]?.once('exit', resolve));
    await expect(client.close({ fail: true })).rejects.toMatchObject({ code: 'E_REFUSED' });
    expect(await exited).toBe(1);
    // A close is no death: nothing is logged.
    expect(warnings).toEqual([]);
  });
});
