// The true references of bench:ingest: the same decoded rows written with plain prepared INSERTs (SQLite) or
// COPY (PostgreSQL; a multi-row INSERT is printed beside it) into a minimal table set — one row per span with its encoded JSON, an
// index by trace and one by (tool, time) — one transaction per batch, in the same run. No Toolscope code is on
// this path except the span encoding, so the ratio to it falls when the collector gets slower. The COPY is
// written here, plainly, not with the collector's own COPY code: a faster collector COPY made the reference
// faster too, and the ratio lower (docs/decisions/0031).
import { finished } from 'node:stream/promises';
import Database from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { NormalizedSpan } from '../src/otlp/model.js';
import { encodeSpan } from '../src/storage/span-codec.js';

export type RefRow = [
  traceId: string,
  spanId: string,
  tool: string | null,
  startNs: string,
  json: string,
];

export function refRows(batches: NormalizedSpan[][]): RefRow[][] {
  return batches.map((b) =>
    b.map((s): RefRow => {
      const tool = s.attributes['gen_ai.tool.name'];
      return [
        s.traceId,
        s.spanId,
        typeof tool === 'string' ? tool : null,
        String(s.startNs),
        encodeSpan(s),
      ];
    }),
  );
}

const TABLES = `
  CREATE TABLE ref_spans (trace_id TEXT NOT NULL, span_id TEXT NOT NULL, tool TEXT, start_ns BIGINT NOT NULL, json TEXT NOT NULL);
  CREATE INDEX ref_by_trace ON ref_spans(trace_id);
  CREATE INDEX ref_by_tool ON ref_spans(tool, start_ns);`;

/** Spans per second of prepared INSERTs into a fresh SQLite file (WAL, synchronous=NORMAL like the collector). */
export function sqliteReference(path: string, batches: RefRow[][]): number {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(TABLES);
  const insert = db.prepare('INSERT INTO ref_spans VALUES (?, ?, ?, ?, ?)');
  const write = db.transaction((rows: RefRow[]) => {
    for (const r of rows) insert.run(r[0], r[1], r[2], BigInt(r[3]), r[4]);
  });
  const start = process.hrtime.bigint();
  let n = 0;
  for (const b of batches) {
    write(b);
    n += b.length;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  db.close();
  return n / seconds;
}

/**
 * Spans per second into fresh tables of a PostgreSQL database, one transaction per batch: COPY, or one
 * multi-row INSERT … SELECT unnest(…) per batch.
 */
export async function postgresReference(
  url: string,
  batches: RefRow[][],
  method: 'copy' | 'insert',
): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const client = await pool.connect();
  try {
    await client.query('DROP TABLE IF EXISTS ref_spans');
    await client.query(TABLES);
    const start = process.hrtime.bigint();
    let n = 0;
    for (const b of batches) {
      await client.query('BEGIN');
      if (method === 'copy') await plainCopy(client, b);
      else
        await client.query(
          'INSERT INTO ref_spans SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[])',
          [0, 1, 2, 3, 4].map((i) => b.map((r) => r[i])),
        );
      await client.query('COMMIT');
      n += b.length;
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    await client.query('DROP TABLE ref_spans');
    return n / seconds;
  } finally {
    client.release();
    await pool.end();
  }
}

/**
 * COPY text written here, as the collector's own COPY writes it (one string appended to, a reserved character
 * looked for before any replace, sent at once), so the reference is as fast as plain COPY gets, whatever the
 * collector's code does.
 */
async function plainCopy(client: pg.PoolClient, rows: RefRow[]): Promise<void> {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) text += '\t';
      const v = row[i] as string | null;
      text += v === null ? '\\N' : RESERVED.test(v) ? v.replace(RESERVED_ALL, escapeReserved) : v;
    }
    text += '\n';
  }
  const stream = client.query(
    copyFrom('COPY ref_spans (trace_id, span_id, tool, start_ns, json) FROM STDIN'),
  );
  stream.end(text);
  await finished(stream);
}

const RESERVED = /[\\\t\n\r]/;
const RESERVED_ALL = /[\\\t\n\r]/g;
const escapeReserved = (c: string) =>
  c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r';
