// One-call OpenTelemetry setup for users who have none: the Node SDK with an OTLP/HTTP exporter (protobuf by
// default), honouring the standard OTEL_* variables. Kept out of the main entry so importing the library
// never loads the SDK.
import { diag } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { readEnvConfig } from './config.js';
import { ToolscopeError } from './errors.js';
import { warnNoHashKey } from './hashing.js';
import { endParked } from './parked.js';

export const setupOptionsSchema = z.object({
  /** `service.name` of the spans; else `OTEL_SERVICE_NAME`, else the SDK default. */
  serviceName: z.string().min(1).optional(),
  /** Base URL of the OTLP/HTTP receiver (`/v1/traces` is appended); else the `OTEL_EXPORTER_OTLP_*` variables. */
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  /** Else `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`. */
  protocol: z.enum(['http/protobuf', 'http/json']).optional(),
  /** Flush and shut down when the event loop empties, so short scripts do not lose their last spans. */
  flushOnExit: z.boolean().default(true),
});
export type SetupOptions = z.input<typeof setupOptionsSchema>;

/** Handle of the SDK started by `setupToolscope`. */
export type ToolscopeSdk = {
  /** Exports every finished span now (every answered call's span has ended before its answer went back). */
  forceFlush(): Promise<void>;
  /** Ends the calls still waiting for a leg or a poll (as parts), flushes and stops the SDK; safe to call again. */
  shutdown(): Promise<void>;
};

function resolveProtocol(
  option: SetupOptions['protocol'],
  env: NodeJS.ProcessEnv,
): 'http/protobuf' | 'http/json' {
  const raw =
    option ??
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf';
  const value = raw.trim();
  if (value === 'http/json') return 'http/json';
  if (value !== 'http/protobuf' && value !== '') {
    diag.warn(`@toolscope/instrument: unsupported OTLP protocol "${value}"; using http/protobuf`);
  }
  return 'http/protobuf';
}

/** Starts the OTel Node SDK exporting traces over OTLP/HTTP, and registers it globally. */
export function setupToolscope(options: SetupOptions = {}): ToolscopeSdk {
  const parsed = setupOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ToolscopeError('INVALID_OPTIONS', `setupToolscope: ${problems}`);
  }
  const o = parsed.data;
  const protocol = resolveProtocol(o.protocol, process.env);
  const url = o.endpoint === undefined ? undefined : `${o.endpoint.replace(/\/+$/, '')}/v1/traces`;
  const config = url === undefined ? {} : { url };
  const exporter: SpanExporter =
    protocol === 'http/json' ? new OtlpJsonExporter(config) : new OtlpProtoExporter(config);
  const processor = new BatchSpanProcessor(exporter);
  const sdk = new NodeSDK({
    ...(o.serviceName === undefined ? {} : { serviceName: o.serviceName }),
    spanProcessors: [processor],
    // Traces only: a default NodeSDK would also push metrics and logs to an endpoint that may not take them.
    ...(process.env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(process.env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  // Said at set-up, where an operator looks, not only when the first tool is called.
  if (!readEnvConfig(process.env).hashKey) warnNoHashKey();

  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    // Calls still waiting for a leg or a poll end as parts of their call (decision 0046), then go out.
    endParked();
    stopping ??= sdk.shutdown().catch((error: unknown) => {
      diag.error('@toolscope/instrument: SDK shutdown failed', error);
    });
    return stopping;
  };
  if (o.flushOnExit) {
    process.once('beforeExit', () => {
      void shutdown();
    });
  }
  return {
    forceFlush: () =>
      processor.forceFlush().catch((error: unknown) => {
        diag.error('@toolscope/instrument: flush failed', error);
      }),
    shutdown,
  };
}
