// One of several collectors opening the same new SQLite file at once (open-race.test.ts): it waits for the
// go file, so every child starts migrating in the same moment, then opens, closes and prints the version.
import { existsSync } from 'node:fs';
import { MIGRATIONS } from '../src/storage/sqlite/schema.js';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { writeStagesSource } from '../src/write-stages.js';

const [path, go] = process.argv.slice(2) as [string, string];
process.stdout.write('ready\n');
const nap = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(go)) Atomics.wait(nap, 0, 0, 1);
const storage = openSqliteStorage(path, {
  stages: writeStagesSource(),
  writerThread: false,
  readerThread: false,
});
await storage.close();
process.stdout.write(`migrated ${MIGRATIONS.length}\n`);
