// Retention deletes old traces with their calls and rollups, in steps, and keeps recent data.
import { describe, expect, it } from 'vitest';
import type { ToolsResponse } from '../src/api/schemas.js';
import { startRetention } from '../src/ingest/retention.js';
import { getJson, jsonBody, postJson, startTestCollector } from './harness.js';

describe('retention', () => {
  it('removes data older than the window and nothing newer', async () => {
    const c = await startTestCollector();
    const toolAttrs = () => ({
      attributes: [{ key: 'gen_ai.tool.name', value: { stringValue: 'get_order' } }],
    });
    for (let i = 0; i < 450; i++) {
      expect(
        (await postJson(c.url, jsonBody(1000 + i, 2, toolAttrs, Date.now() - 10 * 86_400_000)))
          .status,
      ).toBe(200);
    }
    expect((await postJson(c.url, jsonBody(5000, 2, toolAttrs))).status).toBe(200);
    const failures: unknown[] = [];
    const retention = startRetention(c.storage, c.queue, 7 * 86_400_000, 3_600_000, (e) =>
      failures.push(e),
    );
    // More old traces than one step deletes: runOnce loops until none are left.
    await retention.runOnce();
    retention.stop();
    const all = await getJson<ToolsResponse>(`${c.url}/api/tools?since=30d`);
    expect(all.body.tools).toEqual([expect.objectContaining({ name: 'get_order', calls: 2 })]);
    expect(
      (await fetch(`${c.url}/api/traces/${(1000).toString(16).padStart(32, '0')}`)).status,
    ).toBe(404);
    expect(
      (await fetch(`${c.url}/api/traces/${(5000).toString(16).padStart(32, '0')}`)).status,
    ).toBe(200);
    expect(failures).toEqual([]);
    await c.stop();
  });

  it('reports a failed step to its error handler, with the cause', async () => {
    const c = await startTestCollector();
    const broken = {
      ...c.storage,
      deleteBefore: () =>
        Promise.reject(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })),
    };
    const reported = new Promise<unknown>((resolve) => {
      const retention = startRetention(broken, c.queue, 86_400_000, 3_600_000, (e) => {
        retention.stop();
        resolve(e);
      });
    });
    expect(await reported).toMatchObject({ code: 'SQLITE_IOERR', message: 'disk I/O error' });
    await c.stop();
  });
});
