// The operator's view of a running `toolscope serve`: liveness and readiness without the token, metrics behind
// it, and a storage failure logged once as a JSON line with its SQLite code, never with the token or payload.
// `toolscope serve` runs as installed (built.ts): under tsx its start alone took most of a test's 20 s on a loaded
// machine (docs/decisions/0058).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { getJson, jsonBody, postJson, startServe } from './harness.js';

const TOKEN = 'ops-test-token-1234';
const auth = { authorization: `Bearer ${TOKEN}` };
const dir = mkdtempSync(join(tmpdir(), 'toolscope-ops-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type LogLine = { level: number; msg: string; cause?: { code?: string; message: string } };
const logLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

describe('operations', () => {
  it('answers /healthz and /readyz without the token, /metrics only with it, counting what ingest did', async () => {
    const { child, url } = await startServe(join(dir, 'a.db'), ['--token', TOKEN], 'built');
    try {
      expect((await getJson(`${url}/healthz`)).body).toMatchObject({ status: 'ok' });
      expect((await getJson(`${url}/readyz`)).body).toEqual({ status: 'ready' });
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      expect((await postJson(url, jsonBody(1, 3), auth)).status).toBe(200);
      expect((await postJson(url, jsonBody(1, 3), auth)).status).toBe(200);
      const res = await fetch(`${url}/metrics`, { headers: auth });
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      const value = (line: string) => Number(new RegExp(`^${line} (\\S+)$`, 'm').exec(text)?.[1]);
      expect(value('toolscope_spans_received_total\\{protocol="http",encoding="json"\\}')).toBe(6);
      expect(value('toolscope_spans_stored_total')).toBe(3);
      expect(value('toolscope_spans_duplicate_total')).toBe(3);
      expect(value('toolscope_write_batches_total\\{result="committed"\\}')).toBe(2);
      expect(value('toolscope_queue_pending_spans')).toBe(0);
      expect(value('toolscope_database_size_bytes')).toBeGreaterThan(0);
      expect(value('toolscope_write_duration_seconds_count')).toBe(2);
      expect(
        value('toolscope_http_requests_total\\{route="/v1/traces",method="POST",status="200"\\}'),
      ).toBe(2);
      expect(text).toMatch(/^toolscope_flags_active\{kind="identical_retry"\} 0$/m);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('logs a failed write once with its SQLite code, is not ready until storage writes again', async () => {
    const db = join(dir, 'b.db');
    const { child, url, output } = await startServe(db, ['--token', TOKEN], 'built');
    try {
      expect((await postJson(url, jsonBody(10, 2), auth)).status).toBe(200);
      // Another process holds the write lock past the writer's busy timeout: SQLITE_BUSY.
      const other = new Database(db);
      other.exec('BEGIN IMMEDIATE');
      const failed = await postJson(
        url,
        jsonBody(11, 2, () => ({
          attributes: [{ key: 'secret', value: { stringValue: 'payload-value-9f3' } }],
        })),
        auth,
      );
      expect(failed.status).toBe(503);
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
      other.exec('ROLLBACK');
      other.close();
      expect((await postJson(url, jsonBody(12, 2), auth)).status).toBe(200);
      expect((await getJson(`${url}/readyz`)).body).toEqual({ status: 'ready' });
      const lines = logLines(output());
      const failures = lines.filter((l) => l.msg.startsWith('storage write failed'));
      expect(failures).toHaveLength(1);
      expect(failures[0]?.cause?.code).toBe('SQLITE_BUSY');
      expect(failures[0]?.level).toBe(50);
      expect(lines.some((l) => l.msg === 'not ready')).toBe(true);
      expect(output()).not.toContain(TOKEN);
      expect(output()).not.toContain('payload-value-9f3');
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
