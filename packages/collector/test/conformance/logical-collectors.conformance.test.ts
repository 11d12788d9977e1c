// Two stateless collectors on one PostgreSQL database, each receiving one part of a logical call whose parts are
// in separate traces (decision 0054): their batches' trace locks do not meet, so only the lock on the parts' link
// hashes orders them. The test holds both batches in their transactions until each has done its lookup (a
// table lock on the call rows stops both at their insert), then lets them go: without the hash lock both looked
// and found nothing, and the call was counted twice.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { NormalizedSpan } from '../../src/otlp/model.js';
import { BACKENDS, PG_URL } from '../backends.js';
import { readCalls, readTools } from '../read-view.js';
import { writeSpans } from '../write-spans.js';
import { creating, leg, poll, STATE } from './logical-spans.js';
import { HOUR_NS, nowNs } from './spans.js';
import { useStores } from './stores.js';

const postgres = BACKENDS.find((b) => b.name === 'postgres');

/** Waits until `n` sessions of the database wait on a lock (each collector's batch, stopped in its transaction). */
async function waitingOnLocks(admin: pg.Client, n: number): Promise<void> {
  for (;;) {
    // The activity view is a snapshot for the rest of a transaction, and `admin` is in one.
    await admin.query('SELECT pg_stat_clear_snapshot()');
    const r = await admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    );
    if (Number(r.rows[0]?.n) >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!PG_URL || !postgres)('one logical call through two collectors: postgres', () => {
  const { fresh, openAt } = useStores(postgres ?? (BACKENDS[0] as (typeof BACKENDS)[number]));

  it.each([
    {
      name: 'two legs, each in its own trace',
      tool: 'book',
      parts: () => [
        leg({ trace: 500, span: 1 }, { 'toolscope.call.legs': 1, 'toolscope.call.awaits': STATE }),
        leg(
          { trace: 501, span: 1, agoMs: 3 * 60_000 - 40 },
          { 'toolscope.call.legs': 1, 'toolscope.call.resumes': STATE },
        ),
      ],
    },
    {
      name: 'a task and its terminal poll, each in its own trace',
      tool: 'report',
      parts: () => [creating(510, 1), poll(511, 1, 25, 'completed')],
    },
  ])('joins $name arriving at two collectors at once', async ({ tool, parts }) => {
    const place = await fresh();
    const collectors = [await openAt(place), await openAt(place)];
    const spans = parts();
    const admin = new pg.Client(place.db);
    await admin.connect();
    try {
      // Both batches get past their traces and their lookups, then stop at the call rows' insert.
      await admin.query('BEGIN');
      await admin.query('LOCK TABLE tool_call_rows IN SHARE MODE');
      const writes = spans.map((span, i) =>
        writeSpans(collectors[i] as (typeof collectors)[number], [span as NormalizedSpan]),
      );
      // One batch waits on the table, the other on the first's lock on their link hash (without that lock: both
      // on the table, each having found nothing).
      await waitingOnLocks(admin, 2);
      await admin.query('COMMIT');
      await Promise.all(writes);
    } finally {
      await admin.end();
    }
    for (const s of collectors) {
      const now = nowNs();
      const page = await readCalls(s, {
        sinceNs: now - HOUR_NS,
        untilNs: now + HOUR_NS,
        limit: 50,
      });
      expect(page.calls.map((c) => [c.tool, c.parts, c.complete])).toEqual([[tool, 2, true]]);
      const [stats] = await readTools(s, now - HOUR_NS, now + HOUR_NS, tool);
      expect(stats?.calls).toBe(1);
    }
  });
});
