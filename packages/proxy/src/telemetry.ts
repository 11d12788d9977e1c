// The proxy's tracer provider: made at the first span, when the upstream's `initialize` answer has named the
// service (unless `--service-name` did), exporting OTLP/HTTP protobuf through the bounded export queue.
import { DiagLogLevel, diag, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import * as sc from '@toolscope/instrument/semconv';
import { ExportQueue, type ExportQueueOptions, type ExportStats } from './export-queue.js';
import type { Logger } from './log.js';
import { PROXY_VERSION } from './version.js';

export const DEFAULT_OTLP_ENDPOINT = 'http://127.0.0.1:4318';
const FALLBACK_SERVICE = 'unknown_service:toolscope-proxy';

/** The traces URL: the flag's base URL, else `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else the base URL's. */
export function tracesUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const base = (b: string) => `${b.replace(/\/+$/, '')}/v1/traces`;
  if (flag) return base(flag);
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  return base(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || DEFAULT_OTLP_ENDPOINT);
}

export type TelemetryOptions = {
  url: string;
  /** `--service-name`; else the upstream's serverInfo. */
  serviceName: string | undefined;
  log: Logger;
  queue?: ExportQueueOptions;
  /** Instead of OTLP (tests of the queue itself). */
  exporter?: SpanExporter;
};

/** Spans of one proxy process. */
export class ProxyTelemetry {
  readonly #options: TelemetryOptions;
  #server: { name: string; version: string | undefined } | undefined;
  #provider: BasicTracerProvider | undefined;
  #queue: ExportQueue | undefined;
  #tracer: Tracer | undefined;

  constructor(options: TelemetryOptions) {
    this.#options = options;
    // OTel's own warnings (exporter errors) as the proxy's JSON lines, never on stdout.
    diag.setLogger(
      {
        error: (msg) => options.log.log('error', msg, { source: 'otel' }),
        warn: (msg) => options.log.log('warn', msg, { source: 'otel' }),
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
  }

  /** The upstream's serverInfo from `initialize`: the service, unless `--service-name` says otherwise. */
  setServer(name: string, version: string | undefined): void {
    this.#server ??= { name, version };
  }

  /** The provider (made now if it is not yet). */
  provider(): TracerProvider {
    if (!this.#provider) {
      const name = this.#options.serviceName ?? this.#server?.name ?? FALLBACK_SERVICE;
      const version = this.#options.serviceName ? undefined : this.#server?.version;
      const exporter =
        this.#options.exporter ??
        new OTLPTraceExporter({ url: this.#options.url, timeoutMillis: 5000 });
      this.#queue = new ExportQueue(exporter, this.#options.log, this.#options.queue);
      this.#provider = new BasicTracerProvider({
        resource: resourceFromAttributes({
          [sc.ATTR_SERVICE_NAME]: name,
          ...(version ? { [sc.ATTR_SERVICE_VERSION]: version } : {}),
        }),
        spanProcessors: [this.#queue],
      });
    }
    return this.#provider;
  }

  tracer(): Tracer {
    this.#tracer ??= this.provider().getTracer('@toolscope/proxy', PROXY_VERSION);
    return this.#tracer;
  }

  stats(): ExportStats {
    return this.#queue?.stats ?? { exported: 0, dropped: 0, failed: 0, queued: 0 };
  }

  /** Exports what is finished, within `timeoutMs`. */
  async shutdown(timeoutMs: number): Promise<void> {
    await this.#queue?.shutdown(timeoutMs);
  }
}
