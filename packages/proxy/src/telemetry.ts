// The proxy's telemetry: one export queue for the process, made at the first span, exporting OTLP/HTTP
// protobuf; each MCP session gets a tracer provider of its own whose spans go under its server's name (as
// `initialize`, `server/discover` or a 2026-07-28 answer says it, unless `--service-name` does). The spans, their
// encoding and the HTTP export are the proxy's own (decision 0021), not the OTel SDK's.
import { DiagLogLevel, diag, type TracerProvider } from '@opentelemetry/api';
import { ExportQueue, type ExportQueueOptions, type ExportStats } from './export-queue.js';
import type { Logger } from './log.js';
import { createOtlpExporter, type OtlpExporter } from './otlp/http-exporter.js';
import type { Scope } from './otlp/proxy-span.js';
import { type ProxyTracer, ProxyTracerProvider } from './otlp/proxy-tracer.js';
import { type ServerIdentity, ServiceResources } from './otlp/resources.js';
import { readSdkEnv, type SdkEnv } from './otlp/sdk-env.js';
import { PROXY_VERSION } from './version.js';

export const DEFAULT_OTLP_ENDPOINT = 'http://127.0.0.1:4318';

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
  /** `--service-name`; else each session's server as it names itself. */
  serviceName: string | undefined;
  /** The service of a server that never names itself (from the command line or the upstream's URL). */
  fallbackService: string;
  log: Logger;
  queue?: ExportQueueOptions;
  /** Instead of OTLP over HTTP (tests of the queue itself). */
  exporter?: OtlpExporter;
  env?: NodeJS.ProcessEnv;
};

/** What one session's observer exports with: its server's identity, which it fills in, and a tracer bound to it. */
export type SessionTelemetry = {
  readonly server: ServerIdentity;
  /** The session's provider (for its contract spans); made now if it is not yet. */
  provider(): TracerProvider;
  /** The proxy's own tracer for the session's call spans. */
  tracer(): ProxyTracer;
};

/** How long one export may take, retries included. */
const EXPORT_TIMEOUT_MS = 5000;

/** Spans of one proxy process. */
export class ProxyTelemetry {
  readonly #options: TelemetryOptions;
  readonly #resources: ServiceResources;
  readonly #sdkEnv: SdkEnv;
  readonly #scopes: Scope[] = [];
  #queue: ExportQueue | undefined;

  constructor(options: TelemetryOptions) {
    this.#options = options;
    this.#resources = new ServiceResources(options.serviceName, options.fallbackService);
    this.#sdkEnv = readSdkEnv(options.env ?? process.env);
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

  /** A new session's telemetry: its spans go under its own server's name. */
  session(): SessionTelemetry {
    const server: ServerIdentity = { name: undefined, version: undefined };
    let provider: ProxyTracerProvider | undefined;
    let tracer: ProxyTracer | undefined;
    const made = () => {
      provider ??= new ProxyTracerProvider(this.#sink(), this.#sdkEnv, this.#scopes, server);
      return provider;
    };
    return {
      server,
      provider: made,
      tracer: () => {
        tracer ??= made().getTracer('@toolscope/proxy', PROXY_VERSION);
        return tracer;
      },
    };
  }

  #sink(): ExportQueue {
    if (!this.#queue) {
      const o = this.#options;
      const exporter =
        o.exporter ?? createOtlpExporter(o.url, EXPORT_TIMEOUT_MS, o.env ?? process.env);
      const resources = this.#resources;
      this.#queue = new ExportQueue(
        exporter,
        { resource: (span) => resources.of(span.service), scopes: this.#scopes },
        o.log,
        o.queue,
      );
    }
    return this.#queue;
  }

  stats(): ExportStats {
    return this.#queue?.stats ?? { exported: 0, dropped: 0, failed: 0, queued: 0 };
  }

  /** Exports what is finished, within `timeoutMs`. */
  async shutdown(timeoutMs: number): Promise<void> {
    await this.#queue?.shutdown(timeoutMs);
  }
}
