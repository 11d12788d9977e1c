// Reading what the proxy sent to a real collector, through its public API: the calls of a tool once they are
// stored (the proxy flushes as it exits, the collector commits after), and a call's span with every attribute.
import { expect } from 'vitest';

export type Call = {
  traceId: string;
  spanId: string;
  code: string | null;
  side: string;
  kind: number;
  issues: { path: string; code: string; message: string }[];
  service: string | null;
  conversationId: string | null;
  clientName: string | null;
};
export type Span = {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  status: { code: number };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
};

/** Readers of the collector at `url`. */
export function reader(url: string) {
  async function api<T>(path: string): Promise<T> {
    const res = await fetch(`${url}${path}`);
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  }

  /** The calls of `tool`, once `n` of them are stored. */
  async function callsOf(tool: string, n: number): Promise<Call[]> {
    for (;;) {
      const { calls } = await api<{ calls: Call[] }>(
        `/api/calls?tool=${encodeURIComponent(tool)}&since=1h`,
      );
      if (calls.length >= n) return calls;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function spanOf(call: Call): Promise<Span> {
    const { spans } = await api<{ spans: Span[] }>(`/api/traces/${call.traceId}`);
    const span = spans.find((s) => s.spanId === call.spanId);
    if (!span) throw new Error(`span ${call.spanId} not in its trace`);
    return span;
  }
  return { api, callsOf, spanOf };
}
