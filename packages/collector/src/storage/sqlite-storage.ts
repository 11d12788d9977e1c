// The SQLite backend: a writer thread owns the writing connection (WAL, synchronous=NORMAL), the main thread
// reads through its own connection, so API queries and commits never wait for each other. See
// docs/decisions/0003 for the layout and durability choices.
import Database from 'better-sqlite3';
import { DEFAULT_DRIFT_THRESHOLDS, type DriftThresholds } from '../detectors/drift.js';
import type { LoopThresholds } from '../detectors/retry-loops.js';
import { BlockWriter } from './block-writer.js';
import { Checkpointer, WRITER_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import { search, toolDetail } from './detail-reader.js';
import { readFlags } from './flag-reader.js';
import { migrate } from './schema.js';
import { SqliteReader } from './sqlite-reader.js';
import type { Storage } from './storage.js';
import { timeseries } from './tool-stats.js';
import { planWrite } from './write-plan.js';
import { WriterThread } from './writer-thread.js';

export type SqliteOptions = {
  /** `synchronous` pragma: NORMAL survives a process kill (WAL); FULL also survives power loss, slower. */
  synchronous?: 'NORMAL' | 'FULL';
  /** Commit on a separate thread (default for files; `:memory:` always writes in-process). */
  writerThread?: boolean;
  /** Retry-loop detector thresholds. */
  thresholds?: Partial<LoopThresholds>;
  /** Drift detector thresholds. */
  drift?: Partial<DriftThresholds>;
};

/** How often the checkpointer thread copies the WAL into the database file. */
const CHECKPOINT_INTERVAL_MS = 250;

export function openSqliteStorage(path: string, options: SqliteOptions = {}): Storage {
  const memory = path === ':memory:' || path === '';
  const db = new Database(path);
  // Larger pages suit the block rows; it only takes effect on a new database.
  db.pragma('page_size = 8192');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  migrate(db);
  const reader = new SqliteReader(db);
  const threaded = !memory && options.writerThread !== false;
  const thresholds = options.thresholds ?? {};
  const drift: DriftThresholds = { ...DEFAULT_DRIFT_THRESHOLDS, ...options.drift };
  const synchronous = options.synchronous ?? 'NORMAL';
  // Every file database gets the checkpointer thread, whichever thread writes (checkpointer.ts).
  const checkpointer = memory
    ? undefined
    : new Checkpointer({ path, synchronous, intervalMs: CHECKPOINT_INTERVAL_MS }, (message) =>
        process.emitWarning(`toolscope: WAL checkpoint failed (retrying): ${message}`),
      );
  if (checkpointer && !threaded) db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
  const inProcess = threaded ? undefined : new BlockWriter(db, thresholds);
  const thread = threaded ? new WriterThread(path, synchronous, thresholds) : undefined;
  return {
    write: async (spans) => {
      const plan = planWrite(spans);
      if (thread) return thread.write(plan);
      return (inProcess as BlockWriter).apply(plan);
    },
    tools: (since, until, tool) => reader.tools(since, until, tool),
    calls: (filter) => reader.calls(filter),
    trace: (id) => reader.trace(id),
    conversation: (id) => reader.conversation(id),
    flags: (since, until, filter) => readFlags(db, reader, since, until, filter, drift),
    toolDetail: (name, since, until) => toolDetail(db, name, since, until),
    timeseries: (since, until, step, tool) => timeseries(db, since, until, step, tool),
    search: (query, since) => search(db, query, since),
    deleteBefore: async (cutoffNs, maxTraces) => {
      if (thread) return thread.deleteBefore(cutoffNs, maxTraces);
      return (inProcess as BlockWriter).deleteBefore(cutoffNs, maxTraces);
    },
    close: async () => {
      await checkpointer?.close();
      await thread?.close();
      if (!memory) db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}
