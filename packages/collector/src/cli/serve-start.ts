// `toolscope serve`'s start and what it tells a person: OTLP/gRPC on the port it was given, or, when that port
// was only the default and another process holds it (a local OpenTelemetry Collector or Jaeger usually does),
// no gRPC, said plainly; the lines that say what listens where, or the one line that says why it could not
// start. The JSON log is for machines and follows.
import { type Collector, type CollectorOptions, startCollector } from '../collector.js';
import { YoungGenerationCap } from '../ingest/young-generation.js';
import { causeOf } from '../ops/logger.js';
import { isPostgresUrl, redactDbUrl } from '../storage/open.js';

/** The OTLP/gRPC port `serve` binds when `--grpc-port` is not given (the OTLP default). */
export const DEFAULT_GRPC_PORT = 4317;

/** The gRPC port asked for: a `--grpc-port` value is explicit, the default is not. */
export type GrpcRequest = { port: number; explicit: boolean };

/** What became of OTLP/gRPC. */
export type GrpcOutcome =
  | { state: 'on'; port: number }
  | { state: 'off'; why: 'flag' }
  | { state: 'off'; why: 'taken'; port: number; code: string };

/** A failed start that was the gRPC listener's bind (grpc-receiver.ts names it so), not HTTP's or storage's. */
function grpcBindFailed(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if (Reflect.get(error, 'syscall') !== 'listen') return undefined;
  const { message, code } = causeOf(error);
  return /OTLP\/gRPC/.test(message) ? (code ?? 'EBIND') : undefined;
}

/**
 * Starts the collector. An explicit gRPC port that cannot be bound fails the start, as does anything else; the
 * default one only turns gRPC off, since the quick start needs nothing but HTTP.
 */
export async function startServing(
  grpc: GrpcRequest,
  options: Omit<CollectorOptions, 'grpcPort'>,
): Promise<{ collector: Collector; grpc: GrpcOutcome }> {
  // The bin keeps the young generation small until the memory limit is known; under one the limiter holds it
  // (ingest/young-generation.ts), without one V8 grows it as it decides.
  if (!options.memoryLimitBytes) new YoungGenerationCap({ maxBytes: undefined });
  // 0 turns gRPC off here: the flag names a fixed port, not "any free one".
  if (grpc.port === 0)
    return { collector: await startCollector(options), grpc: { state: 'off', why: 'flag' } };
  try {
    const collector = await startCollector({ ...options, grpcPort: grpc.port });
    return { collector, grpc: { state: 'on', port: collector.grpcPort ?? grpc.port } };
  } catch (error) {
    const code = grpcBindFailed(error);
    if (grpc.explicit || code === undefined) throw error;
    // The failed start closed what it opened (collector.ts); this one binds HTTP alone.
    const collector = await startCollector(options);
    return { collector, grpc: { state: 'off', why: 'taken', port: grpc.port, code } };
  }
}

const WHY_TAKEN: Record<string, string> = {
  EADDRINUSE: 'is in use by another process',
  EACCES: 'may not be bound by this user',
};

/** The gRPC line's value, for people. */
export function grpcLine(host: string, grpc: GrpcOutcome): string {
  if (grpc.state === 'on') return `${host}:${grpc.port} (TraceService/Export, gzip)`;
  if (grpc.why === 'flag') return 'off (--grpc-port 0)';
  const why = WHY_TAKEN[grpc.code] ?? `cannot be bound (${grpc.code})`;
  return `off, ${host}:${grpc.port} ${why} (send OTLP/HTTP, or choose a gRPC port with --grpc-port)`;
}

/**
 * The JSON log held back while `serve` starts (fastify logs "Server listening" before `listen` returns), so
 * that the lines for people come first; released, it writes what it held and then each line as it comes.
 */
export function heldLog(write: (line: string) => void = (line) => process.stdout.write(line)): {
  stream: { write(line: string): void };
  release(): void;
} {
  let held: string[] | undefined = [];
  return {
    stream: {
      write: (line) => {
        if (held) held.push(line);
        else write(line);
      },
    },
    release: () => {
      const lines = held ?? [];
      held = undefined;
      for (const line of lines) write(line);
    },
  };
}

/** What `serve` prints once it listens: where to send spans, where to look, where the data goes. */
export function startupText(s: {
  url: string;
  host: string;
  grpc: GrpcOutcome;
  db: string;
  retention: string | undefined;
  hashKeySet: boolean;
  /** Whether JSON log lines will follow (`--log-level` other than silent). */
  logs: boolean;
}): string {
  const lines = [
    `toolscope collector listening on ${s.url}`,
    `  OTLP/HTTP endpoint: ${s.url}/v1/traces (protobuf or JSON, gzip)`,
    `  OTLP/gRPC endpoint: ${grpcLine(s.host, s.grpc)}`,
    `  dashboard:          ${s.url}/`,
    `  JSON API:           ${s.url}/api/tools`,
    `  database:           ${s.db}${s.retention ? `, retention ${s.retention}` : ''}`,
    ...(s.hashKeySet
      ? []
      : [
          '  hash key:           random for this run; set TOOLSCOPE_HASH_KEY so the input hashes it computes match across runs',
        ]),
    ...(s.logs ? ['JSON log lines follow (--log-level sets how many).'] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * One line for a failed start: which port (and the flag that sets it) or which database, and the likely cause,
 * instead of the library's bare message.
 */
export function startProblem(
  error: unknown,
  f: { db: string; port: number; 'grpc-port': number; 'exit-if-db-unreachable': boolean },
): string {
  // causeOf: the first refusal's message when the error has none of its own, any password hidden.
  const { message, code = '' } = causeOf(error);
  const syscall =
    typeof error === 'object' && error !== null ? Reflect.get(error, 'syscall') : undefined;
  if (syscall === 'listen') {
    const port = Number(Reflect.get(error as object, 'port'));
    const address = String(Reflect.get(error as object, 'address') ?? '');
    const grpc = /OTLP\/gRPC/.test(message) || (port === f['grpc-port'] && port !== f.port);
    const flag = grpc ? '--grpc-port' : '--port';
    const why =
      code === 'EADDRINUSE'
        ? 'the port is already in use'
        : code === 'EACCES'
          ? 'permission denied'
          : message;
    return `cannot listen for ${grpc ? 'OTLP/gRPC' : 'HTTP'} on ${address}:${port} (${code || 'error'}: ${why}); stop what uses it or choose another port with ${flag}${grpc ? ' (0 turns gRPC off)' : ''}`;
  }
  if (isPostgresUrl(f.db)) {
    const waiting = f['exit-if-db-unreachable']
      ? ' (--exit-if-db-unreachable: without it the collector starts and connects once the database is reachable)'
      : '';
    // node-postgres messages never include the password; the URL is shown without it.
    return `cannot use the PostgreSQL database ${redactDbUrl(f.db)} (${code || 'error'}: ${message}); check that the server is running, reachable and accepts these credentials${waiting}`;
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY') {
    return `cannot open the database ${f.db} for writing (${code}: ${message}); check that its folder exists and is writable, and that the file system is not read-only or full`;
  }
  return message;
}
