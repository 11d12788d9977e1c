// POSTs encoded OTLP requests to the collector's /v1/traces over HTTP(S), honouring the OTLP exporter's
// variables as the OTel JS exporter does (`OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`, `_COMPRESSION`, `_CERTIFICATE`,
// `_CLIENT_KEY`, `_CLIENT_CERTIFICATE`) and its retries of 429, 502, 503 and 504 within the export's timeout.
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { diag } from '@opentelemetry/api';
import { PROXY_VERSION } from '../version.js';

/** What an export came to. */
export type ExportResult = { ok: true } | { ok: false; error: Error };

/** Sends one encoded request; never rejects. */
export type OtlpExporter = {
  export(body: Buffer): Promise<ExportResult>;
  shutdown(): Promise<void>;
};

const gzipAsync = promisify(gzip);
const RETRYABLE = new Set([429, 502, 503, 504]);
const MAX_ATTEMPTS = 5;

const envText = (env: NodeJS.ProcessEnv, name: string) => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};
const traceOrShared = (env: NodeJS.ProcessEnv, suffix: string) =>
  envText(env, `OTEL_EXPORTER_OTLP_TRACES_${suffix}`) ??
  envText(env, `OTEL_EXPORTER_OTLP_${suffix}`);

/** `k=v,k2=v2` with URL-encoded parts (the OTel SDK's reading); a malformed pair is skipped. */
function headerList(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of raw?.split(',') ?? []) {
    const eq = entry.indexOf('=');
    if (eq <= 0) continue;
    try {
      const key = decodeURIComponent(entry.slice(0, eq).trim());
      const value = decodeURIComponent(entry.slice(eq + 1).trim());
      if (key) headers[key] = value;
    } catch {
      diag.warn(`Invalid OTLP header pair "${entry}", skipped`);
    }
  }
  return headers;
}

function fileFromEnv(env: NodeJS.ProcessEnv, suffix: string, what: string): Buffer | undefined {
  const path = traceOrShared(env, suffix);
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    diag.warn(`Failed to read ${what}`, error);
    return undefined;
  }
}

/** The exporter for `url`, configured from `env`. */
export function createOtlpExporter(
  url: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): OtlpExporter {
  const target = new URL(url);
  const https = target.protocol === 'https:';
  const headers: Record<string, string> = {
    ...headerList(envText(env, 'OTEL_EXPORTER_OTLP_HEADERS')),
    ...headerList(envText(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
    'Content-Type': 'application/x-protobuf',
    'User-Agent': `toolscope-proxy/${PROXY_VERSION}`,
  };
  const compression = traceOrShared(env, 'COMPRESSION');
  const gzipped = compression === 'gzip';
  if (compression && compression !== 'gzip' && compression !== 'none')
    diag.warn(`Unsupported OTLP compression "${compression}", sending uncompressed`);
  if (gzipped) headers['Content-Encoding'] = 'gzip';
  const agent = https
    ? new HttpsAgent({
        keepAlive: true,
        ca: fileFromEnv(env, 'CERTIFICATE', 'root certificate file'),
        cert: fileFromEnv(env, 'CLIENT_CERTIFICATE', 'client certificate chain file'),
        key: fileFromEnv(env, 'CLIENT_KEY', 'client certificate private key file'),
      })
    : new HttpAgent({ keepAlive: true });

  const post = (body: Buffer, waitMs: number) =>
    new Promise<{ status: number; retryAfter: string | undefined } | Error>((resolve) => {
      const send = https ? httpsRequest : httpRequest;
      const req = send(target, {
        method: 'POST',
        agent,
        headers: { ...headers, 'Content-Length': String(body.length) },
        timeout: waitMs,
      });
      req.on('response', (res: IncomingMessage) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }),
        );
        res.on('error', resolve);
      });
      req.on('timeout', () => req.destroy(new Error('Request timed out')));
      req.on('error', resolve);
      req.end(body);
    });

  return {
    async export(raw) {
      const deadline = Date.now() + timeoutMs;
      const body = gzipped ? await gzipAsync(raw) : raw;
      let backoff = 1000;
      for (let attempt = 1; ; attempt++) {
        const outcome = await post(body, Math.max(1, deadline - Date.now()));
        if (outcome instanceof Error) return { ok: false, error: outcome };
        if (outcome.status >= 200 && outcome.status < 300) return { ok: true };
        const error = new Error(`OTLP export answered HTTP ${outcome.status}`);
        if (!RETRYABLE.has(outcome.status) || attempt === MAX_ATTEMPTS) return { ok: false, error };
        const after = Number.parseInt(outcome.retryAfter ?? '', 10);
        const wait = Number.isFinite(after) ? after * 1000 : backoff * (0.8 + Math.random() * 0.4);
        if (wait > deadline - Date.now()) return { ok: false, error };
        await new Promise((r) => setTimeout(r, wait).unref());
        backoff = Math.min(backoff * 1.5, 5000);
      }
    },
    async shutdown() {
      agent.destroy();
    },
  };
}
