// Every reader role a SQL backend answers, over one ReadDb: the reader side (reader.ts) and recovery's reads
// (recovery-reader.ts), as one object of plain functions for a backend or the SQLite reader thread to serve.
import type { SpanReader } from '../contract.js';
import { type RecoveryReader, recoveryMethods } from '../recovery-reader.js';
import { readerMethods } from '../span-reader.js';
import type { ReadDb } from './db.js';
import { SqlReader } from './reader.js';
import { SqlRecoveryReader } from './recovery-reader.js';

export function sqlReaders(db: ReadDb): SpanReader & RecoveryReader {
  return { ...readerMethods(new SqlReader(db)), ...recoveryMethods(new SqlRecoveryReader(db)) };
}
