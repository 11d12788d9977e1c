// `pnpm --filter @toolscope/collector exec tsx bench/call-index.bench.ts [rows] [rows per day]`: which index finds
// call ids by prefix without slowing the writer (decisions 0012, 0038). The same rows (random 21-character ids,
// batches of 512 in WAL mode, by default 1M a day) go into SQLite tables: no index (the reference: plain
// prepared INSERTs), the (ten-minute slot, call_id) expression index of decision 0012, and the (block of 4,096
// rows, call_id) one of decision 0038; then prints rows/s, the ratio to the reference, and a prefix lookup's
// time over the rows of the last week. At bench:ingest's rate (about 20,000 calls a second) pass a rows per day
// of 1.7e9. Prints numbers; asserts nothing.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BLOCK_ROWS, BLOCK_SQL, blockWhere, prefixEnd } from '../src/storage/call-block.js';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const PER_DAY = BigInt(Math.round(Number(process.argv[3] ?? 1_000_000)));
const BATCH = 512;
const DAY_NS = 86_400_000_000_000n;
const STEP_NS = DAY_NS / PER_DAY > 0n ? DAY_NS / PER_DAY : 1n;
const START = 1_700_000_000_000_000_000n;
const SLOT_NS = 600_000_000_000n;
const SLOT_SQL = '(start_ns / 600000000000)';
const INDEXES: Record<string, string | null> = {
  'no index (reference)': null,
  'slots (start_ns / 10 min, call_id)': `CREATE INDEX i ON t(${SLOT_SQL}, call_id)`,
  'blocks (id / 4096, call_id)': `CREATE INDEX i ON t(${BLOCK_SQL}, call_id)`,
};

const ids = Array.from({ length: ROWS }, () => `call_${randomBytes(12).toString('base64url')}`);
const pad = 'x'.repeat(200);
const dir = mkdtempSync(join(tmpdir(), 'toolscope-call-index-'));
const end = START + BigInt(ROWS) * STEP_NS;
const weekAgo = end - 7n * DAY_NS;
/** The rows of the last week: their slots (decision 0012), or their blocks. */
function windowWhere(name: string): { where: string; units: number } {
  if (name.startsWith('slots')) {
    const slots: bigint[] = [];
    for (let s = (end - 1n) / SLOT_NS; s >= weekAgo / SLOT_NS && s >= START / SLOT_NS; s--)
      slots.push(s);
    return { where: `${SLOT_SQL} IN (${slots.join(', ')})`, units: slots.length };
  }
  const first = weekAgo > START ? (weekAgo - START) / STEP_NS : 0n;
  const blocks: bigint[] = [];
  for (let b = BigInt(ROWS) / BLOCK_ROWS; b >= (first + 1n) / BLOCK_ROWS; b--) blocks.push(b);
  return { where: blockWhere(blocks), units: blocks.length };
}
let reference = 0;
try {
  for (const [name, index] of Object.entries(INDEXES)) {
    const db = new Database(join(dir, `${name.length}.db`));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, start_ns INTEGER, call_id TEXT, pad TEXT)');
    if (index) db.exec(index);
    const insert = db.prepare('INSERT INTO t (id, start_ns, call_id, pad) VALUES (?, ?, ?, ?)');
    const batch = db.transaction((from: number) => {
      for (let j = from; j < Math.min(ROWS, from + BATCH); j++)
        insert.run(j + 1, START + BigInt(j) * STEP_NS, ids[j] as string, pad);
    });
    const t0 = performance.now();
    for (let i = 0; i < ROWS; i += BATCH) batch(i);
    const rate = ROWS / ((performance.now() - t0) / 1000);
    if (index === null) reference = rate;
    let lookup = '';
    if (index !== null) {
      const { where, units } = windowWhere(name);
      const q = db.prepare(
        `SELECT call_id FROM t WHERE ${where} AND call_id > ? AND call_id < ? LIMIT 10`,
      );
      const t1 = performance.now();
      for (let k = 0; k < 100; k++) {
        const p = (ids[(k * 9_973) % ROWS] as string).slice(0, 9);
        q.all(p, prefixEnd(p));
      }
      lookup = `, 9-character prefix over a week (${units} ${name.split(' ')[0]}): ${((performance.now() - t1) / 100).toFixed(2)} ms`;
    }
    console.log(
      `${name.padEnd(36)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} rows/s, ratio ${(rate / reference).toFixed(2)}${lookup}`,
    );
    db.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
