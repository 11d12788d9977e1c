// A minimal OTLP/HTTP receiver on a loopback port for tests whose spans come from another process; it keeps
// raw requests and decodes OTLP/JSON bodies into span views. (The collector package is the real receiver.)
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SpanView } from './mcp/scenario.js';

export type Received = { path: string; headers: IncomingHttpHeaders; body: Buffer };

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
};
type OtlpSpan = {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: { key: string; value: AnyValue }[];
  status?: { code?: number };
  links?: { traceId: string; spanId: string }[];
};
type OtlpJson = { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };

function anyValue(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.doubleValue;
}

export async function startReceiver() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const json = req.headers['content-type'] === 'application/json';
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : Buffer.alloc(0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    received,
    /** Call spans of every JSON export so far, as views (OTLP kinds shifted to API kinds). */
    jsonSpans(): SpanView[] {
      return this.allJsonSpans().filter((s) => !s.name.startsWith('tool_contract '));
    },
    /** Every span of every JSON export so far, contract spans included. */
    allJsonSpans(): SpanView[] {
      return received
        .filter((r) => r.path === '/v1/traces' && r.headers['content-type'] === 'application/json')
        .flatMap((r) => (JSON.parse(r.body.toString()) as OtlpJson).resourceSpans)
        .flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
        .map((s) => ({
          name: s.name,
          kind: s.kind - 1,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId || undefined,
          attributes: Object.fromEntries(
            (s.attributes ?? []).map((a) => [a.key, anyValue(a.value)]),
          ),
          statusCode: s.status?.code ?? 0,
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
