// A conversation's key filter written by an earlier collector (the 512-byte format, or format 2, whose keys and
// rungs were hashed otherwise) cannot be read as it is: it says "maybe" to every key, so a loop whose last
// round arrives after the upgrade is still flagged, and the filter is written back in the current format. One of
// format 3 (a single layer, before decision 0070) is read as the first layer, its keys kept. On PostgreSQL, the
// filters stay in their rows past 2 KB (schema 15).
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { flagsOf } from '../../src/detection/read-flags.js';
import type { NormalizedSpan } from '../../src/otlp/model.js';
import { BACKENDS, type Backend } from '../backends.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, nowNs, traceIdOf } from './spans.js';
import { useStores } from './stores.js';

const MS = 1_000_000n;
const CONVERSATION = 'conv-upgrade';

/** Round `r` of an A → B cycle, in trace 80 + r of the conversation. */
function round(base: bigint, r: number): NormalizedSpan[] {
  const t0 = base + BigInt(r * 1000) * MS;
  const step = (span: number, tool: string, input: string, startNs: bigint) => ({
    // The same result every round: no progress.
    ...callSpan({
      trace: 80 + r,
      span,
      tool,
      input,
      outputHash: input,
      conversation: CONVERSATION,
    }),
    startNs,
    endNs: startNs + 100n * MS,
  });
  return [
    step(1, 'search_docs', 'a1a1a1a1a1a1a1a1', t0),
    step(2, 'open_doc', 'b1b1b1b1b1b1b1b1', t0 + 200n * MS),
  ];
}

/** An earlier collector's filter of no keys: 512 zero bytes, or format 2's byte and 512 zero bytes. */
const EARLIER = {
  '512-byte': Buffer.alloc(512),
  'format 2': Buffer.concat([Buffer.from([2]), Buffer.alloc(512)]),
};

/** Sets the conversation's stored filter, and reads it back, as the database holds it. */
async function storedKeys(backend: Backend, db: string, set?: Buffer): Promise<Buffer> {
  if (backend.name === 'sqlite') {
    const conn = new Database(db);
    try {
      if (set)
        conn
          .prepare('UPDATE conversations SET keys = ? WHERE conversation_id = ?')
          .run(set, CONVERSATION);
      return conn
        .prepare('SELECT keys FROM conversations WHERE conversation_id = ?')
        .pluck()
        .get(CONVERSATION) as Buffer;
    } finally {
      conn.close();
    }
  }
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    if (set)
      await client.query('UPDATE conversations SET keys = $1 WHERE conversation_id = $2', [
        set,
        CONVERSATION,
      ]);
    const r = await client.query<{ keys: Buffer }>(
      'SELECT keys FROM conversations WHERE conversation_id = $1',
      [CONVERSATION],
    );
    return r.rows[0]?.keys ?? Buffer.alloc(0);
  } finally {
    await client.end();
  }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(
    `key filters of an earlier collector: ${backend.name}`,
    () => {
      const { fresh, openAt, window, closedByTest } = useStores(backend);

      /**
       * Rounds 0 and 1 written by one collector, its stored filter then replaced by what `earlier` makes of it
       * (what an earlier collector would have left), round 2 by the next: the conversation's flags, and its
       * filter as stored after.
       */
      async function acrossUpgrade(earlier: (stored: Buffer) => Buffer) {
        const place = await fresh();
        const base = nowNs() - 60_000n * MS;
        const before = await openAt(place);
        await writeSpans(before, round(base, 0));
        await writeSpans(before, round(base, 1));
        await before.close();
        closedByTest(before);
        await storedKeys(backend, place.db, earlier(await storedKeys(backend, place.db)));

        const after = await openAt(place);
        await writeSpans(after, round(base, 2));
        const { since, until } = window();
        const flags = (await flagsOf(after, since, until, {})).filter(
          (f) => f.conversationId === CONVERSATION,
        );
        await after.close();
        closedByTest(after);
        return { flags, stored: await storedKeys(backend, place.db) };
      }

      for (const [format, bytes] of Object.entries(EARLIER))
        it(`flags a cycle whose last round comes after an upgrade from the ${format} filter`, async () => {
          // The earlier collector's filter held these keys, hashed its way.
          const { flags, stored } = await acrossUpgrade(() => bytes);
          expect(flags.map((f) => [f.kind, f.count])).toEqual([['tool_cycle', 6]]);
          expect(flags[0]?.evidence.traceIds?.sort()).toEqual([80, 81, 82].map(traceIdOf));
          // Rebuilt from the conversation read back, in the current format: its byte, its one layer of bits,
          // the run counts.
          expect([stored[0], stored[1]]).toEqual([4, 1]);
          expect(stored.subarray(2, 514).some((byte) => byte !== 0)).toBe(true);
        });

      it('keeps the keys of a format 3 filter (one layer, before layers), and flags the cycle they complete', async () => {
        // Format 3 is format 4's one layer without the layer count: its byte, 512 bytes of bits, run counts. Read
        // as empty, the cycle would be missed; that it is not read as "maybe" (legacy) key-filter.test.ts shows.
        const { flags } = await acrossUpgrade((current) => {
          expect([current[0], current[1]]).toEqual([4, 1]);
          return Buffer.concat([Buffer.from([3]), current.subarray(2)]);
        });
        expect(flags.map((f) => [f.kind, f.count])).toEqual([['tool_cycle', 6]]);
      });

      if (backend.name === 'postgres')
        it('keeps a filter in its row, uncompressed, up to a page (schema 15)', async () => {
          const place = await fresh();
          const store = await openAt(place);
          await store.close();
          closedByTest(store);
          const client = new pg.Client({ connectionString: place.db });
          await client.connect();
          try {
            const r = await client.query<{ options: string[]; storage: string }>(
              `SELECT c.reloptions AS options, a.attstorage AS storage FROM pg_class c
                 JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'keys'
                WHERE c.oid = 'conversations'::regclass`,
            );
            expect(r.rows).toEqual([{ options: ['toast_tuple_target=8160'], storage: 'e' }]);
          } finally {
            await client.end();
          }
        });
    },
  );
}
