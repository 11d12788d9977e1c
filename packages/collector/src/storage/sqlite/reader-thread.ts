// The main-thread handle of the reader thread (reader-worker.ts): every reader method of the contract, sent
// to the thread and answered from its own connection.
import type { DriftThresholds } from '../../detectors/drift.js';
import type { SpanReader } from '../contract.js';
import { startStorageWorker } from './storage-worker.js';
import { ThreadClient } from './thread-client.js';

type ReadMethod = keyof SpanReader;

export type ReaderBody = { type: 'read'; method: ReadMethod; args: unknown[] } | { type: 'close' };

/** A SpanReader whose methods run on the reader thread. */
export function readerThread(
  path: string,
  drift: DriftThresholds,
  onDamage: (what: string) => void,
): SpanReader & { close(): Promise<void> } {
  const client = new ThreadClient<ReaderBody>(
    () => startStorageWorker('reader-worker', { path, drift }),
    (notice) => {
      if (notice.notice === 'damage' && typeof notice.what === 'string') onDamage(notice.what);
    },
  );
  const call =
    <M extends ReadMethod>(method: M) =>
    (...args: Parameters<SpanReader[M]>) =>
      client.send({ type: 'read', method, args }) as ReturnType<SpanReader[M]>;
  return {
    tools: call('tools'),
    calls: call('calls'),
    trace: call('trace'),
    conversation: call('conversation'),
    flags: call('flags'),
    toolDetail: call('toolDetail'),
    timeseries: call('timeseries'),
    search: call('search'),
    contracts: call('contracts'),
    contractSummaries: call('contractSummaries'),
    close: () => client.close({ type: 'close' }),
  };
}
