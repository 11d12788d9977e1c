// A load generator far faster than the collector, shared by the flood tests and `pnpm flood`: one protobuf
// batch encoded once, then per send a copy with new trace, call and conversation ids written in place (no
// encoding per send), over many HTTP connections or gRPC calls at once, each sending its next batch as soon as
// the last is answered. It counts what was acknowledged, so a test can check that every acknowledged span is
// stored; process-memory.ts reads the collector's memory from /proc, outside the process.
import { randomBytes } from 'node:crypto';
import type { ClientHttp2Session, IncomingHttpHeaders } from 'node:http2';
import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { TRACE_EXPORT_PATH, TRACE_SERVICE } from '../src/api/grpc-receiver.js';
import { ExportTraceServiceRequest } from '../src/otlp/proto.js';
import { CODES, TOOLS } from './spans.js';

/** Written in place per send: eight hex digits of the send's number. */
const MARK = 'KKKKKKKK';
export const SPANS_PER_TRACE = 8;
export const TOOL_SPANS_PER_TRACE = 6;

type Attr = { key: string; value: Record<string, unknown> };
const str = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });
const int = (key: string, v: number): Attr => ({ key, value: { intValue: v } });
const bool = (key: string, v: boolean): Attr => ({ key, value: { boolValue: v } });

/** One agent trace of the benchmarks' shape (spans.ts): a turn, a model call, six tool calls. */
function traceSpans(t: number, runId: Buffer, startNs: bigint) {
  // Bytes 0-7 are the mark (rewritten per send), 8-11 this run's, 12-15 the trace's place in the batch.
  const traceId = Buffer.concat([Buffer.from(MARK), runId, Buffer.alloc(4)]);
  traceId.writeUInt32BE(t, 12);
  const spanId = (i: number) => Buffer.from([0x51, 0, 0, 0, 0, 0, 0, i + 1]);
  const conversation = `conv-${MARK}-${t}`;
  const at = (ms: number) => String(startNs + BigInt(ms) * 1_000_000n);
  const span = (i: number, name: string, attributes: Attr[], error = false) => ({
    traceId,
    spanId: spanId(i),
    ...(i > 0 ? { parentSpanId: spanId(0) } : {}),
    name,
    kind: 1,
    startTimeUnixNano: at(i),
    endTimeUnixNano: at(i + 1),
    attributes,
    ...(error ? { status: { code: 2 } } : {}),
  });
  const spans = [
    span(0, 'agent.turn', [str('gen_ai.conversation.id', conversation)]),
    span(1, 'chat gpt', [str('gen_ai.operation.name', 'chat'), str('gen_ai.request.model', 'gpt')]),
  ];
  for (let i = 0; i < TOOL_SPANS_PER_TRACE; i++) {
    const n = t * TOOL_SPANS_PER_TRACE + i;
    const tool = TOOLS[n % TOOLS.length] as string;
    const code = CODES[n % CODES.length] as string;
    const failing = n % 10 === 0;
    spans.push(
      span(
        i + 2,
        `execute_tool ${tool}`,
        [
          str('gen_ai.operation.name', 'execute_tool'),
          str('gen_ai.tool.name', tool),
          str('gen_ai.tool.call.id', `call-${MARK}-${n}`),
          str('gen_ai.conversation.id', conversation),
          str('toolscope.schema.version', String(1 + (n % 2))),
          int('toolscope.attempt', 1),
          str('toolscope.effect', n % 5 === 0 ? 'write' : 'read'),
          bool('toolscope.partial_effect', false),
          str('toolscope.input.hash', (n * 2654435761).toString(16).padStart(16, '0').slice(-16)),
          str('toolscope.input.shape', 'customerId:string,includeHistory:boolean'),
          int('toolscope.output.bytes', 100 + ((n * 7919) % 5000)),
          ...(failing
            ? [str('error.type', code), str('toolscope.error.code', code)]
            : ([] as Attr[])),
        ],
        failing,
      ),
    );
  }
  return spans;
}

/** Batches of `traces` traces each, every one with ids no other send of this generator uses. */
export class FloodBatches {
  readonly spans: number;
  readonly toolSpans: number;
  readonly #template: Buffer;
  readonly #marks: number[] = [];
  #sent = 0;

  constructor(traces = 64) {
    const runId = randomBytes(4);
    const startNs = BigInt(Date.now()) * 1_000_000n;
    const message = ExportTraceServiceRequest.fromObject({
      resourceSpans: [
        {
          resource: { attributes: [str('service.name', 'flood-agent')] },
          scopeSpans: [
            {
              scope: { name: '@toolscope/instrument', version: '0.1.0' },
              spans: Array.from({ length: traces }, (_, t) => traceSpans(t, runId, startNs)).flat(),
            },
          ],
        },
      ],
    });
    this.#template = Buffer.from(ExportTraceServiceRequest.encode(message).finish());
    for (let at = this.#template.indexOf(MARK); at >= 0; at = this.#template.indexOf(MARK, at + 1))
      this.#marks.push(at);
    this.spans = traces * SPANS_PER_TRACE;
    this.toolSpans = traces * TOOL_SPANS_PER_TRACE;
  }

  /** Bytes of one batch on the wire. */
  get bytes(): number {
    return this.#template.length;
  }

  next(): Buffer {
    const body = Buffer.from(this.#template);
    const mark = (this.#sent++).toString(16).padStart(8, '0');
    for (const at of this.#marks) body.write(mark, at, 'latin1');
    return body;
  }
}

/** What a flood did: answers by status, and what was acknowledged. */
export type FloodCounts = {
  answers: Record<string, number>;
  ackedBatches: number;
  ackedSpans: number;
  ackedToolSpans: number;
  /** Refusals that carried a retry hint (Retry-After, or RetryInfo in grpc-status-details-bin). */
  hinted: number;
};

const emptyCounts = (): FloodCounts => ({
  answers: {},
  ackedBatches: 0,
  ackedSpans: 0,
  ackedToolSpans: 0,
  hinted: 0,
});

function tally(counts: FloodCounts, answer: string, acked: boolean, batches: FloodBatches): void {
  counts.answers[answer] = (counts.answers[answer] ?? 0) + 1;
  if (!acked) return;
  counts.ackedBatches++;
  counts.ackedSpans += batches.spans;
  counts.ackedToolSpans += batches.toolSpans;
}

export type FloodOptions = {
  batches: FloodBatches;
  /** Requests in flight at once. */
  concurrency: number;
  /** The flood stops sending new requests once this returns true; requests in flight are answered. */
  done: () => boolean;
  token?: string;
  /** Sends each batch gzipped, as the OpenTelemetry Collector's exporters do by default (gRPC: grpc-encoding). */
  gzip?: boolean;
};

/** OTLP/HTTP protobuf requests, each connection sending its next batch as soon as one is answered. */
export async function floodHttp(url: string, o: FloodOptions): Promise<FloodCounts> {
  const counts = emptyCounts();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (!o.done()) {
        const res = await fetch(`${url}/v1/traces`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-protobuf',
            ...(o.gzip ? { 'content-encoding': 'gzip' } : {}),
            ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
          },
          body: o.gzip ? gzipSync(o.batches.next()) : o.batches.next(),
        }).catch((error: unknown) => ({ error }));
        if ('error' in res) {
          tally(counts, 'network error', false, o.batches);
          continue;
        }
        await res.arrayBuffer();
        if (res.headers.get('retry-after')) counts.hinted++;
        tally(counts, String(res.status), res.status === 200, o.batches);
      }
    }),
  );
  return counts;
}

const GrpcClient = grpc.makeGenericClientConstructor(TRACE_SERVICE, 'TraceService');
const raw = (b: Buffer) => b;

/** One OTLP/gRPC Export with a grpc-js client: the status code's name, and whether it carried RetryInfo. */
export function exportGrpc(
  client: grpc.Client,
  body: Buffer,
  metadata: grpc.Metadata,
): Promise<{ code: string; hinted: boolean }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(TRACE_EXPORT_PATH, raw, raw, body, metadata, (error) => {
      const code = error ? (grpc.status[error.code] ?? String(error.code)) : 'OK';
      const hinted = (error?.metadata?.get('grpc-status-details-bin').length ?? 0) > 0;
      resolve({ code, hinted });
    });
  });
}

export type GrpcFloodOptions = FloodOptions & {
  /** grpc-js channels (each one HTTP/2 connection) the calls are spread over. */
  channels?: number;
};

export function grpcClients(port: number, channels: number, gzip = false): grpc.Client[] {
  return Array.from(
    { length: channels },
    (_, i) =>
      new GrpcClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
        // Distinct options keep grpc-js from sharing one connection between the clients.
        'grpc.channel_id': i,
        ...(gzip ? { 'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip } : {}),
        'grpc.max_send_message_length': -1,
      } as grpc.ChannelOptions),
  );
}

/** OTLP/gRPC Export calls, each sending its next batch as soon as one is answered. */
export async function floodGrpc(port: number, o: GrpcFloodOptions): Promise<FloodCounts> {
  const counts = emptyCounts();
  const clients = grpcClients(port, o.channels ?? 4, o.gzip);
  const metadata = new grpc.Metadata();
  if (o.token) metadata.set('authorization', `Bearer ${o.token}`);
  try {
    await Promise.all(
      Array.from({ length: o.concurrency }, async (_, i) => {
        const client = clients[i % clients.length] as grpc.Client;
        while (!o.done()) {
          const { code, hinted } = await exportGrpc(client, o.batches.next(), metadata);
          if (hinted) counts.hinted++;
          tally(counts, code, code === 'OK', o.batches);
        }
      }),
    );
  } finally {
    for (const c of clients) c.close();
  }
  return counts;
}

/**
 * One OTLP/gRPC Export over a raw HTTP/2 stream, `message` sent as it is with the compressed flag set and
 * `grpc-encoding: gzip`: a bomb costs the sender only its compressed bytes. Resolves with the grpc-status.
 */
export function sendCompressed(
  session: ClientHttp2Session,
  message: Buffer,
  token?: string,
): Promise<string> {
  return new Promise((resolve) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': TRACE_EXPORT_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-encoding': 'gzip',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    });
    let status: string | undefined;
    const take = (headers: IncomingHttpHeaders) => {
      const value = headers['grpc-status'];
      if (value !== undefined) status = grpc.status[Number(value)] ?? String(value);
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('error', () => undefined);
    stream.on('close', () => resolve(status ?? `closed (${stream.rstCode})`));
    stream.resume();
    const prefix = Buffer.alloc(5);
    prefix.writeUInt8(1, 0);
    prefix.writeUInt32BE(message.length, 1);
    stream.end(Buffer.concat([prefix, message]));
  });
}
