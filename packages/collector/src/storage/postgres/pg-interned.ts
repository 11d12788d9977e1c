// The ids of what the PostgreSQL writer interns: strings of call rows (call-row.ts) and resources. Rows of both
// never change or go away once written, so a writer remembers their ids; an attempt's new ids join the caches
// only once it has committed (pg-writer.ts says why).
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { arrayParams } from './pg-db.js';
import type { Later } from './pg-transaction.js';

/** Ids one attempt of a batch read or inserted: strings by value, resources by digest. */
export type Learned = { strings: Map<string, number>; resources: Map<string, number> };
export const newLearned = (): Learned => ({ strings: new Map(), resources: new Map() });

export class InternedIds {
  /** Resource rows never change or go away once written, so their ids can be remembered. */
  readonly #resourceIds = new Map<string, number>();
  /** Ids of `strings` (call-row.ts), never deleted either. */
  readonly #stringIds = new Map<string, number>();

  /** Adds a committed attempt's ids to the caches. */
  remember(learned: Learned): void {
    remember(this.#stringIds, learned.strings);
    remember(this.#resourceIds, learned.resources);
  }

  /**
   * Ids of the batch's interned strings, inserted when new. In value order, so two batches that insert the same
   * new strings wait for each other instead of deadlocking.
   */
  async stringIdsOf(
    client: pg.PoolClient,
    later: Later,
    wanted: Set<string>,
    learned: Learned,
  ): Promise<Map<string, number>> {
    const missing = [...wanted].filter((v) => !this.#stringIds.has(v)).sort();
    const found = new Map<string, number>();
    if (missing.length > 0) {
      later(
        client.query(
          `INSERT INTO strings (value) SELECT v FROM unnest($1::text[]) AS s(v) ORDER BY v
           ON CONFLICT (value) DO NOTHING`,
          arrayParams([missing]),
        ),
      );
      const rows = await client.query<{ id: number; value: string }>(
        'SELECT id, value FROM strings WHERE value = ANY($1::text[])',
        arrayParams([missing]),
      );
      for (const r of rows.rows) found.set(r.value, r.id);
      for (const [v, id] of found) learned.strings.set(v, id);
    }
    const ids = new Map<string, number>();
    for (const v of wanted) {
      const id = found.get(v) ?? this.#stringIds.get(v);
      if (id === undefined) throw new Error('an interned string of a tool call has no id');
      ids.set(v, id);
    }
    return ids;
  }

  async resourceIdsOf(
    client: pg.PoolClient,
    later: Later,
    resources: string[],
    learned: Learned,
  ): Promise<number[]> {
    const digests = resources.map((json) => createHash('sha1').update(json).digest('base64'));
    const missing = digests.flatMap((d, i) =>
      this.#resourceIds.has(d) ? [] : [{ digest: d, json: resources[i] as string }],
    );
    if (missing.length > 0) {
      // DO NOTHING takes no lock on an existing row: every collector shares the same few resources.
      later(
        client.query(
          `INSERT INTO resources (digest, attributes) SELECT * FROM unnest($1::text[], $2::text[])
           ON CONFLICT (digest) DO NOTHING`,
          arrayParams([missing.map((m) => m.digest), missing.map((m) => m.json)]),
        ),
      );
      const found = await client.query<{ id: string; digest: string }>(
        'SELECT id, digest FROM resources WHERE digest = ANY($1::text[])',
        arrayParams([missing.map((m) => m.digest)]),
      );
      for (const r of found.rows) learned.resources.set(r.digest, Number(r.id));
    }
    return digests.map((d) => this.#resourceIds.get(d) ?? learned.resources.get(d) ?? 0);
  }
}

/** Adds ids to a cache, which stays bounded (it is emptied past 10,000 ids). */
function remember(cache: Map<string, number>, ids: Map<string, number>): void {
  if (cache.size + ids.size > 10_000) cache.clear();
  for (const [key, id] of ids) cache.set(key, id);
}
