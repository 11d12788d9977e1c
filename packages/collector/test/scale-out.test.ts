// Several stateless collectors on one PostgreSQL database, as separate `toolscope serve` processes (as installed,
// built.ts: five starts, each a second of CPU less than under tsx, docs/decisions/0058): a loop
// whose calls each reach a different collector is flagged once and every collector answers the same; a
// SIGKILL of one collector while two ingest loses no acknowledged span; `report --db postgres://` reads the
// same store. Runs only with a PostgreSQL server (always in CI: see backends.ts).
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { freshPgDatabase, PG_URL } from './backends.js';
import { captureIo, getJson, jsonBody, otlpToolCalls, postJson, startServe } from './harness.js';

type Flag = { kind: string; traceId?: string; conversationId?: string; count: number };
const hex = (n: number) => n.toString(16).padStart(32, '0');
const children: ChildProcess[] = [];

async function collectors(db: string, n: number) {
  const started = await Promise.all(Array.from({ length: n }, () => startServe(db, [], 'built')));
  children.push(...started.map((s) => s.child));
  return started;
}

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

describe.skipIf(!PG_URL)('scale out: stateless collectors on PostgreSQL', () => {
  it('flags a loop spread over three collectors once, and every collector answers the same', async () => {
    const db = await freshPgDatabase();
    const servers = await collectors(db, 3);
    const at = Date.now() - 5_000;
    // One trace's three identical failing calls, each through its own collector, one after the other.
    for (let i = 0; i < 3; i++) {
      const body = otlpToolCalls([
        { trace: 901, input: 'ffffffff00000001', code: 'INVALID_INPUT', atMs: at + i },
      ]);
      expect((await postJson(servers[i]?.url ?? '', body)).status).toBe(200);
    }
    // Six identical calls of another trace sent at once, two through each collector: the batches of one
    // trace are serialized by its row lock, so the last to commit sees all six.
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const body = otlpToolCalls([
          { trace: 902, input: 'ffffffff00000002', code: 'FAILED', atMs: at + 10 + i },
        ]);
        expect((await postJson(servers[i % 3]?.url ?? '', body)).status).toBe(200);
      }),
    );
    // A conversation's loop across three traces, each trace through another collector, at once.
    await Promise.all(
      [0, 1, 2].map(async (i) => {
        const body = otlpToolCalls([
          {
            trace: 910 + i,
            conversation: 'conv-spread',
            input: 'ffffffff00000003',
            code: 'REJECTED',
            atMs: at + 20 + i,
          },
        ]);
        expect((await postJson(servers[i]?.url ?? '', body)).status).toBe(200);
      }),
    );
    // A cycle of two tools over three traces of one conversation, its calls spread over two of the
    // collectors and sent at once: the conversation's row lock orders the batches, the last sees the cycle.
    await Promise.all(
      [0, 1, 2].flatMap((r) =>
        [
          { tool: 'search_docs', input: 'a1a1a1a1a1a1a1a1', outputHash: '0a0a0a0a0a0a0a0a' },
          { tool: 'open_doc', input: 'b1b1b1b1b1b1b1b1', outputHash: '0b0b0b0b0b0b0b0b' },
        ].map(async (step, i) => {
          const body = otlpToolCalls([
            { trace: 920 + r, conversation: 'conv-cycle', ...step, atMs: at + 30 + 2 * r + i },
          ]);
          expect((await postJson(servers[(2 * r + i) % 2]?.url ?? '', body)).status).toBe(200);
        }),
      ),
    );
    const answers = await Promise.all(
      servers.map(async (s) => ({
        flags: (await getJson<{ flags: Flag[] }>(`${s.url}/api/flags?since=1h`)).body.flags,
        tools: (await getJson(`${s.url}/api/tools?since=1h`)).body,
        trace: (await getJson(`${s.url}/api/traces/${hex(902)}`)).body,
      })),
    );
    const identical = (answers[0]?.flags ?? []).filter((f) => f.kind === 'identical_retry');
    expect(identical.map((f) => [f.traceId ?? f.conversationId, f.count]).sort()).toEqual([
      [hex(901), 3],
      [hex(902), 6],
      ['conv-spread', 3],
    ]);
    const cycles = (answers[0]?.flags ?? []).filter((f) => f.kind === 'tool_cycle');
    expect(cycles.map((f) => [f.conversationId, f.count])).toEqual([['conv-cycle', 6]]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);

    const io = captureIo();
    expect(await runCli(['report', '--db', db, '--since', '1h', '--format', 'json'], io)).toBe(0);
    const report = JSON.parse(io.stdout) as {
      tools: { name: string; calls: number }[];
      flags: Flag[];
    };
    expect(report.tools.find((t) => t.name === 'get_order')).toMatchObject({ calls: 12 });
    expect(report.flags.filter((f) => f.kind === 'identical_retry')).toHaveLength(3);
    expect(io.stderr).toBe('');
  }, 60_000);

  it('loses no acknowledged span when one of two ingesting collectors is killed with SIGKILL', async () => {
    const db = await freshPgDatabase();
    const [victim, survivor] = await collectors(db, 2);
    if (!victim || !survivor) throw new Error('two collectors expected');
    const acked: number[] = [];
    let seed = 1;
    let victimAcks = 0;
    let stop = false;
    const send = async (url: string, counts: boolean) => {
      while (!stop) {
        const id = seed++;
        try {
          const res = await postJson(url, jsonBody(id, 20));
          await res.arrayBuffer();
          if (res.status === 200) {
            acked.push(id);
            if (counts) victimAcks++;
          }
        } catch {
          // Refused or reset by the kill: not acknowledged, so nothing was promised.
          if (counts) return;
        }
      }
    };
    const senders = [
      ...[0, 1].map(() => send(victim.url, true)),
      ...[0, 1].map(() => send(survivor.url, false)),
    ];
    // The kill comes once the victim has acknowledged some batches (progress, not a guess at timing).
    while (victimAcks < 10) await new Promise((resolve) => setTimeout(resolve, 10));
    const exited = new Promise((resolve) => victim.child.once('exit', resolve));
    victim.child.kill('SIGKILL');
    await exited;
    const afterKill = acked.length;
    while (acked.length < afterKill + 10) await new Promise((resolve) => setTimeout(resolve, 10));
    stop = true;
    await Promise.all(senders);
    const lost: number[] = [];
    for (const id of acked) {
      const trace = await getJson<{ spans: unknown[] }>(`${survivor.url}/api/traces/${hex(id)}`);
      if (trace.status !== 200 || trace.body.spans.length !== 20) lost.push(id);
    }
    process.stdout.write(
      `\nscale out: ${acked.length} batches acknowledged by two collectors (${victimAcks} by the killed one), ${lost.length} lost\n`,
    );
    expect(lost).toEqual([]);
  }, 90_000);
});
