// `pnpm --filter @toolscope/collector exec tsx --conditions=@toolscope/source bench/narrow-calls.bench.ts`:
// what a narrower `tool_calls` row would save on SQLite (decision 0011's "Not done"), before anyone
// changes the shared read SQL for it. The bench:storage workload is written by the collector's own storage,
// then its calls are copied, batch by batch in arrival order (as the writer builds the table), into two fresh
// tables with the same four indexes: one with today's columns (the reference), one narrowed. Narrowed: no
// trace id (it is in `traces`), span and parent ids and 16-hex hashes as 8-byte BLOBs, the input shape, tool,
// service and source as ids into one string table, no call bucket. Prints bytes per span of each; asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decodeProtobuf } from '../src/otlp/decode-proto.js';
import { processBatch } from '../src/process/batch.js';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { writeStagesSource } from '../src/write-stages.js';
import { makeSpans, protobufBatches } from './spans.js';

const TRACES = Number(process.env.BENCH_TRACES ?? 25_000);
const BATCH = 512;
const dir = mkdtempSync(join(tmpdir(), 'toolscope-narrow-'));
const path = join(dir, 'narrow.db');
try {
  const storage = openSqliteStorage(path, { stages: writeStagesSource() });
  let spans = 0;
  for (const body of protobufBatches(makeSpans(TRACES), BATCH)) {
    const r = decodeProtobuf(body);
    if (!r.ok) throw new Error(r.message);
    await storage.write(processBatch(r.batch.spans));
    spans += r.batch.spans.length;
  }
  await storage.close();

  const db = new Database(path);
  const wide = db.prepare("SELECT name, type FROM pragma_table_info('tool_calls')").all() as {
    name: string;
    type: string;
  }[];
  const columnsOf = (list: typeof wide, typeOf: (c: (typeof wide)[number]) => string) =>
    list.map((c) => `${c.name} ${c.name === 'id' ? 'INTEGER PRIMARY KEY' : typeOf(c)}`).join(', ');
  db.exec(`
    CREATE TABLE wide (${columnsOf(wide, (c) => c.type)});
    CREATE INDEX wide_by_time ON wide(start_ns);
    CREATE INDEX wide_by_tool ON wide(tool, start_ns);
    CREATE INDEX wide_by_trace ON wide(trace_seq);
    CREATE INDEX wide_by_call_slot ON wide((start_ns / 600000000000), call_id) WHERE call_id IS NOT NULL;

    CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE);
  `);
  const blobs = new Set([
    'span_id',
    'parent_span_id',
    'schema_hash',
    'input_hash',
    'idempotency_key_hash',
  ]);
  const interned = new Set(['tool', 'input_shape', 'service', 'source']);
  const dropped = new Set(['trace_id', 'call_bucket']);
  const narrowed = wide.filter((c) => !dropped.has(c.name));
  db.exec(`
    CREATE TABLE narrow (${columnsOf(narrowed, (c) => (blobs.has(c.name) ? 'BLOB' : interned.has(c.name) ? 'INTEGER' : c.type))});
    CREATE INDEX narrow_by_time ON narrow(start_ns);
    CREATE INDEX narrow_by_tool ON narrow(tool, start_ns);
    CREATE INDEX narrow_by_trace ON narrow(trace_seq);
    CREATE INDEX narrow_by_call_slot ON narrow((start_ns / 600000000000), call_id) WHERE call_id IS NOT NULL;
  `);
  const intern = db.prepare(
    'INSERT INTO strings (value) VALUES (?) ON CONFLICT (value) DO NOTHING',
  );
  const idOf = db.prepare<[string], number>('SELECT id FROM strings WHERE value = ?').pluck();
  const ids = new Map<string, number>();
  const str = (v: string | null): number | null => {
    if (v === null) return null;
    let id = ids.get(v);
    if (id === undefined) {
      intern.run(v);
      id = idOf.get(v) as number;
      ids.set(v, id);
    }
    return id;
  };
  // 16 hex digits as 8 bytes; anything else stays as it is (another dialect's hash, say).
  const blob = (v: string | null): Buffer | string | null =>
    v !== null && /^[0-9a-f]{16}$/.test(v) ? Buffer.from(v, 'hex') : v;
  const total = db.prepare('SELECT COUNT(*) FROM tool_calls').pluck().get() as number;
  // Nanosecond times pass 2^53: read them as bigints.
  const page = db
    .prepare('SELECT * FROM tool_calls WHERE id > ? ORDER BY id LIMIT ?')
    .safeIntegers(true);
  const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');
  const insertWide = db.prepare(`INSERT INTO wide VALUES (${marks(wide.length)})`);
  const insertNarrow = db.prepare(`INSERT INTO narrow VALUES (${marks(narrowed.length)})`);
  type Row = Record<string, string | number | bigint | null>;
  const s = (r: Row, k: string) => (r[k] === null || r[k] === undefined ? null : String(r[k]));
  let last = 0;
  for (;;) {
    // About a batch's calls per transaction, as the writer commits them.
    const rows = page.all(last, (BATCH * 3) / 4) as Row[];
    if (rows.length === 0) break;
    db.transaction(() => {
      for (const r of rows) {
        insertWide.run(...Object.values(r));
        insertNarrow.run(
          ...narrowed.map(({ name }) =>
            blobs.has(name) ? blob(s(r, name)) : interned.has(name) ? str(s(r, name)) : r[name],
          ),
        );
      }
    })();
    last = Number(rows.at(-1)?.id);
  }
  const bytes = (like: string) =>
    db
      .prepare('SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE ?')
      .pluck()
      .get(like) as number;
  const line = (label: string, b: number) =>
    console.log(`  ${label.padEnd(40)} ${(b / spans).toFixed(0).padStart(5)} B per span`);
  console.log(`narrow-calls  node ${process.version}  ${spans} spans, ${total} tool calls, SQLite`);
  for (const [label, table] of [
    ["today's columns (reference)", 'wide'],
    ['narrowed', 'narrow'],
  ] as const) {
    line(`${label}: rows`, bytes(table));
    line(`${label}: its four indexes`, bytes(`${table}_by_%`));
  }
  line(
    'narrowed: string table (with its index)',
    bytes('strings') + bytes('sqlite_autoindex_strings_%'),
  );
  line("the collector's own tool_calls, as written", bytes('tool_calls'));
  line("the collector's own tool_calls indexes", bytes('tool_calls_by_%'));
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
