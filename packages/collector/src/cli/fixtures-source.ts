// Where `toolscope fixtures` gets its files: a store opened directly (--db), through the same reading as the API,
// or a running collector's GET /api/fixtures (--url), whose answer is written as it came, byte for byte.
import { existsSync } from 'node:fs';
import { fixtureText, parseFixtures } from '@toolscope/instrument/fixtures';
import { traceResponseSchema } from '../api/schemas.js';
import { flagsOf } from '../detection/read-flags.js';
import { type FixtureSelection, readFixtures } from '../fixtures/read-fixtures.js';
import { openStorage } from '../pipeline.js';
import { isPostgresUrl, redactDbUrl } from '../storage/open.js';

export type FixtureSource = { db: string } | { url: string; token: string | undefined };

/** The files' texts per tool, or why there are none: exit 1 for nothing to write, 2 for a source that failed. */
export type Fetched =
  | { ok: true; files: { tool: string; text: string }[] }
  | { ok: false; exit: 1 | 2; message: string };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function fromStore(db: string, sel: FixtureSelection): Promise<Fetched> {
  if (!isPostgresUrl(db) && !existsSync(db))
    return { ok: false, exit: 2, message: `no database at ${db}` };
  let storage: Awaited<ReturnType<typeof openStorage>>;
  try {
    storage = await openStorage(db, { recallReadSettings: true });
  } catch (error) {
    return { ok: false, exit: 2, message: `cannot open ${redactDbUrl(db)}: ${messageOf(error)}` };
  }
  try {
    const read = await readFixtures(
      { reader: storage, flags: (since, until) => flagsOf(storage, since, until, {}) },
      sel,
    );
    if (!read.ok) return { ok: false, exit: 1, message: read.message };
    return { ok: true, files: read.files.map((f) => ({ tool: f.tool, text: fixtureText(f) })) };
  } finally {
    await storage.close();
  }
}

/** The query of a selection for GET /api/fixtures (times as the API reads them: epoch milliseconds). */
function queryOf(sel: FixtureSelection, tool: string | undefined): URLSearchParams {
  const q = new URLSearchParams();
  const ms = (ns: bigint) => String(ns / 1_000_000n);
  if (sel.kind === 'trace') q.set('trace', sel.traceId);
  else if (sel.kind === 'flag') {
    q.set('flag', sel.flagId);
    q.set('since', ms(sel.sinceNs));
    q.set('until', ms(sel.untilNs));
  } else {
    if (sel.code) q.set('code', sel.code);
    q.set('since', ms(sel.sinceNs));
    q.set('until', ms(sel.untilNs));
    q.set('limit', String(sel.limit));
  }
  if (tool) q.set('tool', tool);
  return q;
}

async function fromApi(
  url: string,
  token: string | undefined,
  sel: FixtureSelection,
): Promise<Fetched> {
  const base = url.replace(/\/+$/, '');
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    let said = '';
    try {
      said = String((JSON.parse(text) as { error?: { message?: unknown } }).error?.message ?? '');
    } catch {
      said = '';
    }
    return { status: res.status, text, said };
  };
  try {
    // A trace may hold several tools' calls: the API answers one tool's file at a time.
    let tools: (string | undefined)[] = [sel.tool];
    if (sel.kind === 'trace' && sel.tool === undefined) {
      const got = await get(`/api/traces/${encodeURIComponent(sel.traceId)}`);
      if (got.status === 404)
        return { ok: false, exit: 1, message: `trace ${sel.traceId} is not stored` };
      const trace = traceResponseSchema.safeParse(got.status === 200 ? JSON.parse(got.text) : null);
      if (!trace.success)
        return { ok: false, exit: 2, message: `${base} did not answer with a trace` };
      tools = [
        ...new Set(
          trace.data.spans.flatMap((s) => (s.call && !s.call.paired ? [s.call.tool] : [])),
        ),
      ].sort();
      if (tools.length === 0)
        return { ok: false, exit: 1, message: 'no tool calls to make fixtures of' };
    }
    const files: { tool: string; text: string }[] = [];
    for (const tool of tools) {
      const got = await get(`/api/fixtures?${queryOf(sel, tool)}`);
      if (got.status === 404) return { ok: false, exit: 1, message: got.said || 'nothing found' };
      if (got.status !== 200)
        return {
          ok: false,
          exit: 2,
          message: `GET /api/fixtures answered ${got.status}${got.said ? `: ${got.said}` : ''}`,
        };
      files.push({ tool: parseFixtures(got.text, `${base}/api/fixtures`).tool, text: got.text });
    }
    return { ok: true, files };
  } catch (error) {
    return {
      ok: false,
      exit: 2,
      message: `cannot read fixtures from ${base}: ${messageOf(error)}`,
    };
  }
}

export function fetchFixtures(source: FixtureSource, sel: FixtureSelection): Promise<Fetched> {
  return 'db' in source ? fromStore(source.db, sel) : fromApi(source.url, source.token, sel);
}
