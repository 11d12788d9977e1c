// A PostgreSQL batch that loses a deadlock runs again from the start (pg-db.ts inTransaction): the second attempt
// must insert again what the rolled-back first attempt had inserted, not reuse the ids it was given then. A
// trigger fails the first COPY of call rows with a deadlock's SQLSTATE; a sequence, which a rollback does not
// undo, lets it fail once only.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Storage } from '../src/index.js';
import { execRaw, freshPgDatabase, open, PG_URL } from './backends.js';
import { callSpan } from './conformance/spans.js';
import { writeSpans } from './write-spans.js';

const stores: Storage[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe.skipIf(!PG_URL)('a PostgreSQL batch retried after a deadlock', () => {
  it('stores the strings and resource of its calls again, and reads them back', async () => {
    const db = await freshPgDatabase();
    const store = await open(db);
    stores.push(store);
    // Migrated, and a first batch has cached the ids of what it stored.
    await writeSpans(store, [callSpan({ trace: 1, span: 1, tool: 'known_tool' })]);
    await execRaw(
      db,
      `CREATE SEQUENCE fail_once;
       CREATE FUNCTION fail_once() RETURNS trigger AS $$
       BEGIN
         IF nextval('fail_once') = 1 THEN
           RAISE EXCEPTION 'injected deadlock' USING ERRCODE = '40P01';
         END IF;
         RETURN NEW;
       END $$ LANGUAGE plpgsql;
       CREATE TRIGGER fail_once BEFORE INSERT ON tool_call_rows FOR EACH ROW EXECUTE FUNCTION fail_once();`,
    );
    // New strings (a tool, a service) and a new resource, inserted by the first attempt before its call rows fail.
    const span = {
      ...callSpan({ trace: 2, span: 1, tool: 'brand_new_tool' }),
      resource: { 'service.name': 'brand-new-service' },
    };
    expect(await writeSpans(store, [span])).toMatchObject({ inserted: 1, toolCalls: 1 });
    const client = new pg.Client(db);
    await client.connect();
    try {
      const failed = await client.query<{ n: string }>('SELECT last_value AS n FROM fail_once');
      // The trigger ran for the first attempt (and failed it) and again for the second.
      expect(Number(failed.rows[0]?.n)).toBe(2);
      // Both are interned (call-row.ts): a row pointing at a rolled-back id would read them as null.
      const calls = await client.query<{ tool: string | null; service: string | null }>(
        "SELECT tool, service FROM tool_calls WHERE tool IS DISTINCT FROM 'known_tool'",
      );
      expect(calls.rows).toEqual([{ tool: 'brand_new_tool', service: 'brand-new-service' }]);
      const blocks = await client.query<{ attributes: string | null }>(
        `SELECT r.attributes FROM span_blocks b LEFT JOIN resources r ON r.id = b.resource_id
         WHERE b.span_ids = $1`,
        [span.spanId],
      );
      expect(blocks.rows.map((r) => r.attributes)).toEqual([
        JSON.stringify({ 'service.name': 'brand-new-service' }),
      ]);
    } finally {
      await client.end();
    }
  });
});
