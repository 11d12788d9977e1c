// A re-sent batch adds nothing, and a restart keeps what was acknowledged.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CallsResponse, TraceResponse } from '../src/api/schemas.js';
import { getJson, jsonBody, postJson, startTestCollector } from './harness.js';

const toolAttrs = (i: number) => ({
  attributes: [
    { key: 'gen_ai.tool.name', value: { stringValue: 'get_order' } },
    { key: 'toolscope.input.hash', value: { stringValue: `h${i}` } },
  ],
});

describe('durability', () => {
  it('ignores a re-sent batch (exporter retry): no duplicate span, call or count', async () => {
    const c = await startTestCollector();
    const body = jsonBody(10, 4, toolAttrs);
    expect((await postJson(c.url, body)).status).toBe(200);
    expect((await postJson(c.url, body)).status).toBe(200);
    const trace = await getJson<TraceResponse>(`${c.url}/api/traces/${'a'.padStart(32, '0')}`);
    expect(trace.body.spans).toHaveLength(4);
    const calls = await getJson<CallsResponse>(`${c.url}/api/calls?tool=get_order`);
    expect(calls.body.calls).toHaveLength(4);
    const tools = await getJson<{ tools: { calls: number }[] }>(`${c.url}/api/tools`);
    expect(tools.body.tools[0]?.calls).toBe(4);
    await c.stop();
  });

  it('keeps acknowledged data across a restart on the same file', async () => {
    const first = await startTestCollector({}, undefined);
    const dir = first.dir;
    expect((await postJson(first.url, jsonBody(11, 3, toolAttrs))).status).toBe(200);
    await first.close();
    const second = await startTestCollector({}, dir);
    const trace = await getJson<TraceResponse>(`${second.url}/api/traces/${'b'.padStart(32, '0')}`);
    expect(trace.status).toBe(200);
    expect(trace.body.spans.map((s) => s.name)).toEqual(['span-0', 'span-1', 'span-2']);
    await second.stop();
  });

  it('copies committed spans into the database file in the background, not at the WAL limit', async () => {
    const c = await startTestCollector();
    const sizeOf = () => statSync(c.dbPath).size;
    // Let the schema's pages reach the file first, so only the batch below can grow it.
    await until(() => sizeOf() > 0);
    const before = sizeOf();
    // Random text: span blocks are compressed on SQLite (block-packing.ts), and a repeated letter would vanish.
    const big = () => ({
      attributes: [
        { key: 'payload', value: { stringValue: randomBytes(2250).toString('base64') } },
      ],
    });
    // ~450 KB once packed: far below the writer's own checkpoint (32 MiB of WAL), so only the checkpointer thread copies it.
    expect((await postJson(c.url, jsonBody(12, 200, big))).status).toBe(200);
    await until(() => sizeOf() >= before + 300_000);
    expect(sizeOf()).toBeGreaterThanOrEqual(before + 300_000);
    await c.stop();
  });
});

describe('closing a storage', () => {
  // In a child process, so that "nothing else keeps the event loop alive" is real: closing must hold the
  // checkpointer thread until it has answered (it once exited with the close unfinished, code 13).
  for (const mode of ['in-process', 'thread']) {
    it(`finishes in a process with nothing else to do (${mode} writer)`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'toolscope-close-'));
      const script = fileURLToPath(new URL('./fixtures/close-storage.ts', import.meta.url));
      // tsx as a loader: one process, where the tsx command starts two.
      const run = spawnSync(
        process.execPath,
        [
          ...['--import', import.meta.resolve('tsx'), '--conditions=@toolscope/source'],
          ...[script, join(dir, 'c.db'), mode],
        ],
        { encoding: 'utf8', timeout: 30_000 },
      );
      rmSync(dir, { recursive: true, force: true });
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('closed');
      expect(run.status).toBe(0);
    });
  }
});

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}
