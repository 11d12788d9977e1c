// One client's calls spread over two days, on every backend: a page of `calls({ client })` reads only the hours
// the client's rollups name (storage/sql/client-ranges.ts), and still lists exactly the calls a read of every
// call finds for that client, newest first, page after page; a call older than every stored hour (retention
// cuts the rollups before the traces) is still found.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallFilter, RecordedCall, Storage } from '../../src/storage/contract.js';
import { pgReadDb } from '../../src/storage/postgres/pg-db.js';
import { clientRanges } from '../../src/storage/sql/client-ranges.js';
import type { ReadDb } from '../../src/storage/sql/db.js';
import { sqliteReadDb } from '../../src/storage/sqlite/read-db.js';
import { BACKENDS, type Backend, execRaw } from '../backends.js';
import { writeSpans } from '../write-spans.js';
import { callSpan, HOUR_NS } from './spans.js';
import { useStores } from './stores.js';

const HOUR_MS = 3_600_000;
/** The middle of the hour `h` hours before the current one, in ms before now: each call well inside its hour. */
const now = Date.now();
const agoOfHour = (h: number) => now - (Math.floor(now / HOUR_MS) - h) * HOUR_MS - HOUR_MS / 2;

/** busy: a call in each of the last 40 hours; rare: six calls in five hours (two adjacent); some name none. */
function spans() {
  let trace = 0;
  const call = (hoursAgo: number, client?: { name: string; version: string }) => {
    const s = callSpan({ trace: ++trace, span: 1, agoMs: agoOfHour(hoursAgo) });
    if (client) {
      s.attributes['toolscope.mcp.client.name'] = client.name;
      s.attributes['toolscope.mcp.client.version'] = client.version;
    }
    return s;
  };
  const busy = { name: 'busy', version: '1' };
  const rare = { name: 'rare', version: '1' };
  return [
    ...Array.from({ length: 40 }, (_, h) => call(h, busy)),
    ...[30, 5, 5, 4, 1].map((h) => call(h, rare)),
    call(20, { name: 'rare', version: '2' }),
    ...[2, 12, 33].map((h) => call(h)),
  ];
}

/** Every page of `f` with two calls a page, in order. */
async function allPages(store: Storage, f: Omit<CallFilter, 'limit'>): Promise<RecordedCall[]> {
  const out: RecordedCall[] = [];
  let cursor: CallFilter['cursor'];
  for (let pages = 0; pages < 50; pages++) {
    const page = await store.calls({ ...f, limit: 2, cursor });
    out.push(...page.calls);
    if (page.nextCursor === null) return out;
    const [startNs, id] = Buffer.from(page.nextCursor, 'base64url').toString().split(':');
    cursor = { startNs: BigInt(startNs as string), id: Number(id) };
  }
  throw new Error('more than 50 pages');
}

/** A ReadDb of its own on the store, as the readers have. */
function readDbOf(backend: Backend, db: string): { read: ReadDb; close(): Promise<void> } {
  if (backend.name === 'postgres') {
    const pool = new pg.Pool({ connectionString: db, max: 2 });
    const guard = { check: () => {}, translate: (e: unknown) => e };
    return { read: pgReadDb(pool, () => {}, guard, 16), close: () => pool.end() };
  }
  const raw = new Database(db, { readonly: true });
  return { read: sqliteReadDb(raw, () => {}), close: async () => void raw.close() };
}

const ids = (calls: RecordedCall[]) => calls.map((c) => c.spanId);

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`one client's calls, page by page: ${backend.name}`, () => {
    const { fresh, openAt } = useStores(backend);
    const closing: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const close of closing.splice(0)) await close();
    });

    /** A store holding spans(), and a window of the last two days. */
    const stored = async () => {
      const place = await fresh();
      const store = await openAt(place);
      await writeSpans(store, spans());
      const nowNs = BigInt(now) * 1_000_000n;
      return { place, store, window: { sinceNs: nowNs - 48n * HOUR_NS, untilNs: nowNs + HOUR_NS } };
    };

    it('lists what a read of every call finds, reading only the hours its rollups name', async () => {
      const { place, store, window } = await stored();
      const every = (await store.calls({ ...window, limit: 1000 })).calls;
      expect(every).toHaveLength(49);
      const of = (name: string, version?: string) =>
        ids(
          every.filter(
            (c) => c.clientName === name && (version === undefined || c.clientVersion === version),
          ),
        );

      expect(ids(await allPages(store, { ...window, client: { name: 'rare' } }))).toEqual(
        of('rare'),
      );
      expect(of('rare')).toHaveLength(6);
      expect(ids(await allPages(store, { ...window, client: { name: 'busy' } }))).toEqual(
        of('busy'),
      );
      const second = await allPages(store, { ...window, client: { name: 'rare', version: '2' } });
      expect(ids(second)).toEqual(of('rare', '2'));
      expect(second).toHaveLength(1);
      const nobody = await store.calls({ ...window, limit: 10, client: { name: 'nobody' } });
      expect(nobody).toEqual({ calls: [], nextCursor: null });

      // The parts read: rare's hours (4 and 5 joined), newest first, and the window's part older than every
      // stored hour (busy's oldest is 39 hours back).
      const { read, close } = readDbOf(backend, place.db);
      closing.push(close);
      const hour = BigInt(Math.floor(now / HOUR_MS)) * HOUR_NS;
      const hoursAgo = (h: number) => hour - BigInt(h) * HOUR_NS;
      const ranges = await clientRanges(read, { name: 'rare' }, window.sinceNs, window.untilNs);
      expect(ranges).toEqual([
        { fromNs: hoursAgo(1), untilNs: hoursAgo(0) },
        { fromNs: hoursAgo(5), untilNs: hoursAgo(3) },
        { fromNs: hoursAgo(20), untilNs: hoursAgo(19) },
        { fromNs: hoursAgo(30), untilNs: hoursAgo(29) },
        { fromNs: window.sinceNs, untilNs: hoursAgo(39) },
      ]);
      expect(await clientRanges(read, { name: 'nobody' }, hoursAgo(10), window.untilNs)).toEqual(
        [],
      );
      // A window inside one hour is cut to the window.
      const inside = { fromNs: hoursAgo(5) + 1000n, untilNs: hoursAgo(5) + 2000n };
      expect(await clientRanges(read, { name: 'rare' }, inside.fromNs, inside.untilNs)).toEqual([
        inside,
      ]);
    });

    it('still finds the calls older than every stored hour, as retention leaves them', async () => {
      const { place, store, window } = await stored();
      // Retention deletes the hours before its cutoff in one step and the traces a step at a time.
      const cutoffHour = BigInt(Math.floor(now / HOUR_MS) - 25);
      await execRaw(place.db, `DELETE FROM tool_client_hours WHERE hour < ${cutoffHour}`);
      const rare = await allPages(store, { ...window, client: { name: 'rare' } });
      expect(rare).toHaveLength(6);
      const busy = await allPages(store, { ...window, client: { name: 'busy' } });
      expect(busy).toHaveLength(40);
    });
  });
}
