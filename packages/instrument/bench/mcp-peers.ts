// The peers bench:instrument measures beside the adapters, from npm: Traceloop's and Sentry's MCP
// instrumentation, each set up so that it really records a span per call.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TracerProvider } from '@opentelemetry/api';
import { createStackParser, initAndBind } from '@sentry/core';
import {
  nodeStackLineParser,
  ServerRuntimeClient,
  wrapMcpServerWithSentry,
} from '@sentry/core/server';
import { McpInstrumentation } from '@traceloop/instrumentation-mcp';

/**
 * Clients traced by Traceloop's instrumentation-mcp with its defaults. It patches `Client.prototype.request`;
 * given a subclass, it patches only that subclass, so the other variants' clients stay bare.
 */
export function traceloopClients(provider: TracerProvider): () => Client {
  class TraceloopClient extends Client {}
  const traceloop = new McpInstrumentation();
  traceloop.setTracerProvider(provider);
  traceloop.manuallyInstrument({ Client: TraceloopClient });
  return () => new TraceloopClient({ name: 'bench-client', version: '1' });
}

/**
 * The client of an MCP variant connected to `server` over `InMemoryTransport`: Traceloop's for `traceloop`, the
 * client adapter (`instrument`) for `client`, else a bare SDK client.
 */
export async function connectVariant(
  server: McpServer,
  kind: string | undefined,
  provider: TracerProvider,
  instrument: (client: Client) => Client,
): Promise<Client> {
  const bare = new Client({ name: 'bench-client', version: '1' });
  const client =
    kind === 'traceloop'
      ? traceloopClients(provider)()
      : kind === 'client'
        ? instrument(bare)
        : bare;
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return client;
}

// Sentry through @sentry/core's server client: @sentry/node's init would install a global OpenTelemetry context
// manager and tracer provider, which would change what every other variant costs. Every span is sampled and
// recorded; envelopes go to a transport that drops them, as the noop exporter drops the OTel variants' spans.
let recorded = 0;
const sentry = initAndBind(ServerRuntimeClient, {
  dsn: 'https://public@sentry.invalid/1',
  tracesSampleRate: 1,
  integrations: [],
  stackParser: createStackParser(nodeStackLineParser()),
  transport: () => ({ send: async () => ({}), flush: async () => true }),
});
sentry?.on('spanEnd', () => {
  recorded++;
});

/** `wrapMcpServerWithSentry` with its defaults (inputs and outputs recorded); before `connect`, as it needs. */
export const withSentry = (server: McpServer): McpServer => wrapMcpServerWithSentry(server);

/** Spans Sentry ended so far: proof that it recorded what it was timed for. */
export const sentrySpans = (): number => recorded;

export async function closeSentry(): Promise<void> {
  await sentry?.close(1000);
}
