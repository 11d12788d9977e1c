// `pnpm --filter @toolscope/collector exec tsx bench/call-index.bench.ts [rows]`: which index finds call ids
// by prefix without slowing the writer (decision 0012). The same rows (1M a day, random 21-character ids,
// batches of 512 in WAL mode) go into four SQLite tables: no index (the reference: plain prepared INSERTs),
// the old (64 hash buckets, start_ns, call_id) index, a plain call_id index and the (ten-minute slot,
// call_id) expression index; then prints rows/s, the ratio to the reference, and a prefix lookup's time over a
// week of slots. Prints numbers; asserts nothing.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { callBucket } from '../src/storage/call-bucket.js';
import { prefixEnd, SLOT_NS, SLOT_SQL, slotWhere } from '../src/storage/call-slot.js';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const BATCH = 512;
const STEP_NS = 86_400_000_000_000n / 1_000_000n;
const START = 1_700_000_000_000_000_000n;
const INDEXES: Record<string, string | null> = {
  'no index (reference)': null,
  'buckets (64, start_ns, call_id)': 'CREATE INDEX i ON t(bucket, start_ns, call_id)',
  'plain (call_id)': 'CREATE INDEX i ON t(call_id)',
  'slots (start_ns / 10 min, call_id)': `CREATE INDEX i ON t(${SLOT_SQL}, call_id)`,
};

const ids = Array.from({ length: ROWS }, () => `call_${randomBytes(12).toString('base64url')}`);
const pad = 'x'.repeat(200);
const dir = mkdtempSync(join(tmpdir(), 'toolscope-call-index-'));
let reference = 0;
try {
  for (const [name, index] of Object.entries(INDEXES)) {
    const db = new Database(join(dir, `${name.length}.db`));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(
      'CREATE TABLE t (id INTEGER PRIMARY KEY, start_ns INTEGER, call_id TEXT, bucket INTEGER, pad TEXT)',
    );
    if (index) db.exec(index);
    const insert = db.prepare('INSERT INTO t (start_ns, call_id, bucket, pad) VALUES (?, ?, ?, ?)');
    const batch = db.transaction((from: number) => {
      for (let j = from; j < Math.min(ROWS, from + BATCH); j++) {
        const id = ids[j] as string;
        insert.run(START + BigInt(j) * STEP_NS, id, callBucket(id), pad);
      }
    });
    const t0 = performance.now();
    for (let i = 0; i < ROWS; i += BATCH) batch(i);
    const rate = ROWS / ((performance.now() - t0) / 1000);
    if (index === null) reference = rate;
    let lookup = '';
    if (name.startsWith('slots')) {
      const end = START + BigInt(ROWS) * STEP_NS;
      const where = slotWhere(end - 7n * 86_400_000_000_000n, end);
      const q = db.prepare(
        `SELECT call_id FROM t WHERE ${where} AND call_id > ? AND call_id < ? LIMIT 10`,
      );
      const t1 = performance.now();
      for (let k = 0; k < 100; k++) {
        const p = (ids[(k * 9_973) % ROWS] as string).slice(0, 9);
        q.all(p, prefixEnd(p));
      }
      lookup = `, 9-character prefix over a week of slots (${Number((7n * 86_400_000_000_000n) / SLOT_NS)}): ${((performance.now() - t1) / 100).toFixed(2)} ms`;
    }
    console.log(
      `${name.padEnd(36)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} rows/s, ratio ${(rate / reference).toFixed(2)}${lookup}`,
    );
    db.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
