// The SQLite backend: a writer thread owns the writing connection (WAL, synchronous=NORMAL), a reader thread
// answers queries from its own connection, and the main thread (HTTP) only hands work over, so API reads,
// commits and ingest never wait for each other. See docs/decisions/0003 for the layout and durability choices.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { loadWriteStages, type WriteStagesSource } from '../batch-rows.js';
import type { SpanReader, Storage } from '../contract.js';
import { READ_SETTINGS_KEY, type ReadSettingsOptions, settingsOf } from '../read-settings.js';
import { type RecoveryReader, recoveryMethods } from '../recovery-reader.js';
import { readerMethods } from '../span-reader.js';
import { sqlReaders } from '../sql/readers.js';
import { BlockWriter } from './block-writer.js';
import { Checkpointer, WRITER_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import { sqliteMemory } from './memory-shares.js';
import { sqliteReadDb, tuneConnection } from './read-db.js';
import { readerThread } from './reader-thread.js';
import { migrate } from './schema.js';
import { useWal } from './wal-mode.js';
import { WriterThread } from './writer-thread.js';

export type SqliteOptions = ReadSettingsOptions & {
  /** The stages a batch's writes run, built where the writer runs (batch-rows.ts). */
  stages: WriteStagesSource;
  /** `synchronous` pragma: NORMAL survives a process kill (WAL); FULL also survives power loss, slower. */
  synchronous?: 'NORMAL' | 'FULL';
  /** Commit on a separate thread (default for files; `:memory:` always writes in-process). */
  writerThread?: boolean;
  /** Answer reads on a separate thread (default for files; `:memory:` always reads in-process). */
  readerThread?: boolean;
  /** Told of stored values a read could not use (left out of its answer). */
  onDamage?: (what: string) => void;
  /** The collector's memory limit: page caches and the writer's heap are sized from it (memory-shares.ts). */
  memoryLimitBytes?: number | undefined;
};

/** How often the checkpointer thread copies the WAL into the database file. */
const CHECKPOINT_INTERVAL_MS = 250;

export function openSqliteStorage(path: string, options: SqliteOptions): Storage {
  const memory = path === ':memory:' || path === '';
  const db = new Database(path);
  // Before anything that locks: a second collector opening the same new file waits for the first's switch to
  // WAL and its migrations instead of failing with SQLITE_BUSY (tuneConnection sets it again).
  db.pragma('busy_timeout = 5000');
  // Larger pages suit the block rows; it only takes effect on a new database.
  db.pragma('page_size = 8192');
  useWal(db);
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  const shares = sqliteMemory(options.memoryLimitBytes);
  tuneConnection(db, shares.cacheKiB);
  migrate(db);
  const threaded = !memory && options.writerThread !== false;
  const settings = settingsOf(
    options,
    options.recallReadSettings
      ? db
          .prepare('SELECT value FROM toolscope_settings WHERE key = ?')
          .pluck()
          .get(READ_SETTINGS_KEY)
      : undefined,
  );
  if (options.rememberReadSettings && options.readSettings !== undefined)
    db.prepare(
      'INSERT INTO toolscope_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(READ_SETTINGS_KEY, options.readSettings);
  const synchronous = options.synchronous ?? 'NORMAL';
  // Every file database gets the checkpointer thread, whichever thread writes (checkpointer.ts).
  const checkpointer = memory
    ? undefined
    : new Checkpointer({ path, synchronous, intervalMs: CHECKPOINT_INTERVAL_MS }, (message) =>
        process.emitWarning(`toolscope: WAL checkpoint failed (retrying): ${message}`),
      );
  if (checkpointer && !threaded) db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
  // In this thread, the stages are built before the first write; a writer thread builds its own.
  const inProcess = threaded
    ? undefined
    : loadWriteStages(options.stages).then(
        (stages) => new BlockWriter(db, stages, shares.recentTraces),
      );
  // A failure to build them fails every write (each awaits it), not the process.
  inProcess?.catch(() => {});
  const thread = threaded ? new WriterThread(path, synchronous, options.stages, shares) : undefined;
  const readsOnThread = !memory && options.readerThread !== false;
  const onDamage =
    options.onDamage ?? ((what: string) => process.emitWarning(`toolscope: ${what}`));
  const reads = readsOnThread ? readerThread(path, onDamage, shares.cacheKiB) : undefined;
  const reader: SpanReader & RecoveryReader = reads ?? sqlReaders(sqliteReadDb(db, onDamage));
  return {
    backend: 'sqlite',
    location: memory ? ':memory:' : path,
    // One committing and three waiting on the writer thread: the HTTP thread hands the next write over only
    // between requests it decodes (5–6 ms each for 512 spans), so with fewer waiting the writer can run out of
    // work meanwhile. Alternating bench:ingest pairs: 2 against 3, 62.8–66.8 against 65.2–70.9 thousand spans/s
    // and 1.62–1.71 cores busy against 1.71–1.76 (six pairs); 3 against 4, 63.8–69.6 against 68.0–70.2 (four); 8 wrote smaller joins, 65.9–68.2 against
    // 70.4–71.6 for 4 (three) (docs/decisions/0079-the-http-threads-per-span-work.md).
    concurrentWrites: 4,
    takesSealed: true,
    ...(shares.writeSpans ? { writeSpans: shares.writeSpans } : {}),
    write: async (batch) => {
      if (thread) return thread.write(batch);
      return (await (inProcess as Promise<BlockWriter>)).apply(batch);
    },
    deleteBefore: async (cutoffNs, maxTraces) => {
      if (thread) return thread.deleteBefore(cutoffNs, maxTraces);
      return (await (inProcess as Promise<BlockWriter>)).deleteBefore(cutoffNs, maxTraces);
    },
    ...readerMethods(reader),
    ...recoveryMethods(reader),
    readSettings: () => settings,
    ready: async () => {
      try {
        db.prepare('SELECT 1').get();
        // Writable without taking the write lock from the writer: the file and its folder (for the WAL).
        if (!memory) for (const p of [path, dirname(path)]) accessSync(p, constants.W_OK);
        return { ok: true };
      } catch (error) {
        return { ok: false, reason: error instanceof Error ? error.message : String(error) };
      }
    },
    sizeBytes: async () => {
      if (memory) return Number(db.pragma('page_count', { simple: true })) * 8192;
      const size = (p: string) => (existsSync(p) ? statSync(p).size : 0);
      return size(path) + size(`${path}-wal`);
    },
    close: async () => {
      await reads?.close();
      await checkpointer?.close();
      await thread?.close();
      if (!memory) db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}
