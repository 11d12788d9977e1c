// The main-thread handle of the reader thread (reader-worker.ts): every reader method of the contract, sent
// to the thread and answered from its own connection.
import type { SpanReader } from '../contract.js';
import { forwardRecovery, type RecoveryReader } from '../recovery-reader.js';
import { forwardReads } from '../span-reader.js';
import { startStorageWorker } from '../threads/storage-worker.js';
import { ThreadClient } from '../threads/thread-client.js';

type ReadMethod = keyof (SpanReader & RecoveryReader);

export type ReaderBody = { type: 'read'; method: ReadMethod; args: unknown[] } | { type: 'close' };

/** A SpanReader whose methods run on the reader thread. */
export function readerThread(
  path: string,
  onDamage: (what: string) => void,
  cacheKiB: number,
): SpanReader & RecoveryReader & { close(): Promise<void> } {
  const client = new ThreadClient<ReaderBody>(
    () => startStorageWorker(import.meta.url, 'reader-worker', { path, cacheKiB }),
    {
      onNotice: (notice) => {
        if (notice.notice === 'damage' && typeof notice.what === 'string') onDamage(notice.what);
      },
    },
  );
  return {
    ...forwardReads((method, args) => client.send({ type: 'read', method, args })),
    ...forwardRecovery((method, args) => client.send({ type: 'read', method, args })),
    close: () => client.close({ type: 'close' }),
  };
}
