// What the secret tests read back: every answer the collector's API gives about what was stored (calls, each
// trace and conversation, each tool's page and contracts, the tool list, flags and search), as the text a
// client receives, by path.
import { expect } from 'vitest';
import { NEEDLES } from '../../packages/instrument/test/secret-corpus.js';

type CallItem = { traceId: string; tool: string; conversationId: string | null };

/** Every answer about the calls stored at `url`, and about `traces` beyond theirs. */
export async function everyAnswer(
  url: string,
  traces: string[] = [],
): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    const text = await res.text();
    // A tool that never reported a contract (plain tools of other producers) has none to answer with.
    const expected = path.endsWith('/contracts') && res.status === 404 ? 404 : 200;
    expect(res.status, `${path}: ${text.slice(0, 200)}`).toBe(expected);
    answers.set(path, text);
    return JSON.parse(text) as unknown;
  };
  const { calls } = (await get('/api/calls?since=1h&limit=1000')) as { calls: CallItem[] };
  for (const id of new Set([...calls.map((c) => c.traceId), ...traces]))
    await get(`/api/traces/${id}`);
  const conversations = new Set(calls.map((c) => c.conversationId).filter((c) => c !== null));
  for (const id of conversations) await get(`/api/conversations/${encodeURIComponent(String(id))}`);
  const tools = new Set(calls.map((c) => c.tool));
  for (const tool of tools) {
    await get(`/api/tools/${encodeURIComponent(tool)}?since=1h`);
    await get(`/api/tools/${encodeURIComponent(tool)}/contracts`);
  }
  await get('/api/tools?since=1h');
  await get('/api/flags?since=1h');
  for (const q of [...tools, ...traces, ...conversations, ...NEEDLES.slice(0, 8)])
    await get(`/api/search?q=${encodeURIComponent(String(q))}`);
  return answers;
}
