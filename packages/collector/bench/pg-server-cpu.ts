// The CPU a local PostgreSQL server spends, all its processes, from /proc: what a bench:ingest run's writes cost
// the server beside what the collector spends, and the same for the COPY reference. On two shared cores the
// server's work and the collector's compete, so a write path that costs the server more is slower end to end
// even when the collector's own CPU per span does not move.
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

type Stat = { ppid: number; own: number; children: number };

function statOf(pid: number): Stat | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14), in clock ticks (USER_HZ = 100).
    return {
      ppid: Number(fields[1]),
      own: (Number(fields[11]) + Number(fields[12])) / 100,
      children: (Number(fields[13]) + Number(fields[14])) / 100,
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of the server whose postmaster is `postmaster`: its own, its exited children's (counted once the
 * postmaster has reaped them) and its live children's.
 */
export function serverCpuSeconds(postmaster: number): number {
  const root = statOf(postmaster);
  if (!root) return Number.NaN;
  let total = root.own + root.children;
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === postmaster) continue;
    const s = statOf(pid);
    if (s && s.ppid === postmaster) total += s.own;
  }
  return total;
}

/**
 * The postmaster's pid of the server at `url` when it runs on this machine (its checkpointer's parent), or
 * undefined when it cannot be read (another host, no rights).
 */
export async function postmasterOf(url: string): Promise<number | undefined> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const r = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'",
    );
    const pid = r.rows[0]?.pid;
    const parent = pid === undefined ? undefined : statOf(pid)?.ppid;
    return parent !== undefined && statOf(parent) ? parent : undefined;
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}
