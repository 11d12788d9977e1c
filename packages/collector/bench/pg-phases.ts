// A PostgreSQL server between bench:ingest's two timed parts, the collectors' run and the COPY reference: each
// part should pay for its own work and not for the other's aftermath.
// - A checkpoint after the collectors' run, so that their dirty buffers are not written out during the
//   reference (the reference after a faster collector's run came out slower, decision 0031).
// - A VACUUM ANALYZE of the collectors' tables then, so that autovacuum does not work them off during the
//   reference. Its launcher visits each database every naptime / databases (20 s on a server with three): a run
//   lasts about 20 s, so one visit lands in it, and its round of the collectors' tables (1-3 s of a worker, 150,000
//   call rows and their nine indexes) fell in the collectors' run or in the reference's by where the visit came.
//   The ratio then moved by a tenth between runs of the same code (docs/decisions/0083).
// Autovacuum runs during the collectors' part still count there, as they would for a user: they are counted and
// printed, so that a run they fell in can be read as such.
import pg from 'pg';

async function run<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Tables of the database autovacuum has vacuumed or analyzed so far (a count, for a difference). */
export function autovacuumRuns(url: string): Promise<number> {
  return run(url, async (client) => {
    const r = await client.query<{ n: string }>(
      'SELECT COALESCE(SUM(autovacuum_count + autoanalyze_count), 0) AS n FROM pg_stat_all_tables',
    );
    return Number(r.rows[0]?.n ?? 0);
  });
}

/** After the collectors' run: their tables vacuumed and analyzed, then a checkpoint. */
export function settleAfterCollectors(url: string): Promise<void> {
  return run(url, async (client) => {
    await client.query('VACUUM (ANALYZE)');
    await client.query('CHECKPOINT');
  });
}
