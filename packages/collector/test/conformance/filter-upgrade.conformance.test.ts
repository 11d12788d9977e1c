// A conversation's key filter written by an earlier collector (the 512-byte format, or format 2, whose keys and
// rungs were hashed otherwise) cannot be read as it is: it says "maybe" to every key, so a loop whose last
// round arrives after the upgrade is still flagged, and the filter is written back in the current format.
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

      for (const [format, bytes] of Object.entries(EARLIER))
        it(`flags a cycle whose last round comes after an upgrade from the ${format} filter`, async () => {
          const place = await fresh();
          const base = nowNs() - 60_000n * MS;
          const before = await openAt(place);
          await writeSpans(before, round(base, 0));
          await writeSpans(before, round(base, 1));
          await before.close();
          closedByTest(before);
          // What the earlier collector left: a filter in its own format (it held these keys, hashed its way).
          await storedKeys(backend, place.db, bytes);

          const after = await openAt(place);
          await writeSpans(after, round(base, 2));
          const { since, until } = window();
          const flags = (await flagsOf(after, since, until, {})).filter(
            (f) => f.conversationId === CONVERSATION,
          );
          expect(flags.map((f) => [f.kind, f.count])).toEqual([['tool_cycle', 6]]);
          expect(flags[0]?.evidence.traceIds?.sort()).toEqual([80, 81, 82].map(traceIdOf));
          await after.close();
          closedByTest(after);
          // Rebuilt from the conversation read back, in the current format: its byte, the bits, run counts.
          const stored = await storedKeys(backend, place.db);
          expect(stored[0]).toBe(3);
          expect(stored.length).toBeGreaterThan(513);
        });
    },
  );
}
