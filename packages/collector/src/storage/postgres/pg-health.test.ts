// The check after a connection fault: an outage is said once, and a terminated check connection is not one.
import { describe, expect, it } from 'vitest';
import { PgHealth, type PgLog } from './pg-health.js';

const terminated = Object.assign(new Error('terminating connection due to administrator command'), {
  code: '57P01',
});
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
  code: 'ECONNREFUSED',
});

/** A health whose check fails with `failures` in turn, then connects; with what it logged. */
function health(failures: Error[], retryMs = 1) {
  const lines: { level: string; message: string }[] = [];
  const log: PgLog = {
    error: (_f, message) => lines.push({ level: 'error', message }),
    warn: (_f, message) => lines.push({ level: 'warn', message }),
    info: (_f, message) => lines.push({ level: 'info', message }),
  };
  let probes = 0;
  const h = new PgHealth({
    probe: async () => {
      const failure = failures[probes++];
      if (failure) throw failure;
    },
    log,
    minDelayMs: retryMs,
    maxDelayMs: retryMs,
  });
  return { h, lines, probes: () => probes };
}

const settled = async (until: () => boolean) => {
  while (!until()) await new Promise((resolve) => setTimeout(resolve, 1));
};

describe('PgHealth after a connection fault', () => {
  it('takes a check whose own connection was terminated for one connection, when the next one connects', async () => {
    const { h, lines, probes } = health([terminated]);
    h.fault(terminated);
    await settled(() => lines.length > 0);
    expect(probes()).toBe(2);
    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'a database connection failed and was replaced; the database answers',
      },
    ]);
    expect(h.downReason).toBeUndefined();
    h.close();
  });

  it('says the database is down when the check cannot connect, once, and back when it can', async () => {
    const { h, lines } = health([refused, refused]);
    h.fault(terminated);
    await settled(() => lines.some((l) => l.level === 'info'));
    expect(lines.map((l) => l.level)).toEqual(['error', 'info']);
    expect(lines[0]?.message).toMatch(/^database unreachable/);
    h.close();
  });

  it('says so too when the second check after a termination cannot connect either', async () => {
    // Retried only after the test: still down when read.
    const { h, lines } = health([terminated, refused], 60_000);
    h.fault(terminated);
    await settled(() => lines.length > 0);
    expect(lines[0]?.level).toBe('error');
    expect(h.downReason).toMatch(/ECONNREFUSED/);
    h.close();
  });
});
