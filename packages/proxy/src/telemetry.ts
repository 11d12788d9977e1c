// The proxy's tracer provider: made at the first span, when the upstream's `initialize` answer has named the
// service (unless `--service-name` did), exporting OTLP/HTTP protobuf through the bounded export queue. The
// spans, their encoding and the HTTP export are the proxy's own (decision 0021), not the OTel SDK's.
import { DiagLogLevel, diag, type TracerProvider } from '@opentelemetry/api';
import * as sc from '@toolscope/instrument/semconv';
import { ExportQueue, type ExportQueueOptions, type ExportStats } from './export-queue.js';
import type { Logger } from './log.js';
import { createOtlpExporter, type OtlpExporter } from './otlp/http-exporter.js';
import { type ProxyTracer, ProxyTracerProvider } from './otlp/proxy-tracer.js';
import { readSdkEnv } from './otlp/sdk-env.js';
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
  /** Instead of OTLP over HTTP (tests of the queue itself). */
  exporter?: OtlpExporter;
  env?: NodeJS.ProcessEnv;
};

/** How long one export may take, retries included. */
const EXPORT_TIMEOUT_MS = 5000;

/** Spans of one proxy process. */
export class ProxyTelemetry {
  readonly #options: TelemetryOptions;
  #server: { name: string; version: string | undefined } | undefined;
  #provider: ProxyTracerProvider | undefined;
  #queue: ExportQueue | undefined;
  #tracer: ProxyTracer | undefined;

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
    return this.#made();
  }

  #made(): ProxyTracerProvider {
    if (!this.#provider) {
      const name = this.#options.serviceName ?? this.#server?.name ?? FALLBACK_SERVICE;
      const version = this.#options.serviceName ? undefined : this.#server?.version;
      const env = this.#options.env ?? process.env;
      const exporter =
        this.#options.exporter ?? createOtlpExporter(this.#options.url, EXPORT_TIMEOUT_MS, env);
      const scopes: ProxyTracerProvider['scopes'] = [];
      const resource = {
        [sc.ATTR_SERVICE_NAME]: name,
        ...(version ? { [sc.ATTR_SERVICE_VERSION]: version } : {}),
      };
      this.#queue = new ExportQueue(
        exporter,
        { resource, scopes },
        this.#options.log,
        this.#options.queue,
      );
      this.#provider = new ProxyTracerProvider(this.#queue, readSdkEnv(env), scopes);
    }
    return this.#provider;
  }

  /** The proxy's own tracer (its call spans). */
  tracer(): ProxyTracer {
    this.#tracer ??= this.#made().getTracer('@toolscope/proxy', PROXY_VERSION);
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
