// Switching a connection to WAL, for collectors that open one new file at once. SQLite's busy handler does not
// cover every lock this takes: while another process is switching the same new file to WAL (or recovering its
// WAL), the pragma can fail with SQLITE_BUSY at once, whatever busy_timeout says (seen in open-race.test.ts:
// one collector of six failed to start). So the switch is tried again, with short naps, for as long as the
// busy timeout would have waited.
import type Database from 'better-sqlite3';

/** How long the switch is tried for, as the connection's busy_timeout (sqlite-storage.ts). */
const WAL_SWITCH_TIMEOUT_MS = 5_000;
const NAP_MS = 5;

const isBusy = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  'code' in error &&
  String(error.code).startsWith('SQLITE_BUSY');

/** Puts the connection in WAL mode, waiting out another process's switch of the same file; throws past the timeout. */
export function useWal(db: Database.Database, timeoutMs = WAL_SWITCH_TIMEOUT_MS): void {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      // Synchronous, as the open is: the migrations after it are too.
      Atomics.wait(nap, 0, 0, NAP_MS);
    }
  }
}
