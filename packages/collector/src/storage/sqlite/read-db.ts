// ReadDb over a better-sqlite3 connection: statements prepared once per SQL text, integers as bigints (so
// nanosecond times stay exact), answered synchronously inside a resolved promise.
import type Database from 'better-sqlite3';
import type { ReadDb, Row, SqlValue } from '../sql/db.js';
import { inRows } from '../sql/in-rows.js';

const MAX_STATEMENTS = 512;

export function sqliteReadDb(db: Database.Database, damaged: (what: string) => void): ReadDb {
  const statements = new Map<string, Database.Statement>();
  return {
    damaged,
    // BINARY, SQLite's default collation, is byte order already.
    byteOrder: (column) => column,
    inRows: (column, subquery) => inRows('sqlite', column, subquery),
    all: async (sql: string, params: readonly SqlValue[] = []) => {
      let stmt = statements.get(sql);
      if (!stmt) {
        if (statements.size >= MAX_STATEMENTS) statements.clear();
        stmt = db.prepare(sql).safeIntegers(true);
        statements.set(sql, stmt);
      }
      return stmt.all(...params) as Row[];
    },
  };
}

/** Pragmas of every connection of a collector's database file (the writer adds its own). */
export function tuneConnection(db: Database.Database, cacheKiB = 65_536): void {
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = -${Math.round(cacheKiB)}`);
  db.pragma('temp_store = MEMORY');
}
