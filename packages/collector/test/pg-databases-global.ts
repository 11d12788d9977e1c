// Global setup (vitest.config.ts): the PostgreSQL databases a run's tests make (backends.ts freshPgDatabase) carry
// the run's own prefix, and the run drops every one of them when it ends, whatever its tests did: a test that
// fails, or keeps its database to reopen it, leaves none behind on a developer's server (CI's is made for the run
// and stopped after it, scripts/with-postgres.sh). Another run's databases have another prefix, so two runs
// against one server do not drop each other's.
import { withClient } from '../src/storage/postgres/pg-db.js';

/** The environment variable that hands the prefix to the test files (their processes start after this). */
export const PREFIX_VARIABLE = 'TOOLSCOPE_TEST_PG_PREFIX';

export default function setup(): () => Promise<void> {
  const prefix = `toolscope_${process.pid}_${Date.now().toString(36)}_`;
  process.env[PREFIX_VARIABLE] = prefix;
  return async () => {
    const url = process.env.TOOLSCOPE_TEST_PG;
    if (!url) return;
    const failed = (error: unknown) =>
      // The tests' results stand; what was not dropped is said, with the cause.
      console.error(`could not drop the test databases named ${prefix}*:`, error);
    await withClient(url, 10_000, async (admin) => {
      const { rows } = await admin.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
        [prefix],
      );
      // Each tried whatever became of the one before; a name is quoted as the server read it.
      for (const r of rows)
        await admin
          .query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(r.datname)} WITH (FORCE)`)
          .catch(failed);
    }).catch(failed);
  };
}
