// The command line of `toolscope-proxy` (and `toolscope proxy`), parsed with node:util and checked with Zod:
// stdio mode (`-- <command> [args…]`) or Streamable HTTP mode (`--upstream URL --port N`).
import { parseArgs } from 'node:util';
import { z } from 'zod';

export const USAGE = `Usage:
  toolscope-proxy [options] -- <command> [args…]        stdio: run an MCP server as a child and trace it
  toolscope-proxy --upstream URL --port N [--host H]    Streamable HTTP: a reverse proxy in front of URL

Options:
  --otlp-endpoint URL   collector base URL (default $OTEL_EXPORTER_OTLP_ENDPOINT, else http://127.0.0.1:4318)
  --service-name NAME   service.name of the spans (default: each session's server, as it names itself)
  --capture-content     record redacted arguments and results (default $TOOLSCOPE_CAPTURE_CONTENT)
  --enforce-output      answer a result that breaks its tool's outputSchema with an isError envelope
  --upstream URL        the remote MCP server (HTTP mode); its path is served, e.g. /mcp
  --port N              port to listen on (HTTP mode)
  --host H              address to listen on (HTTP mode, default 127.0.0.1)
  --log-level LEVEL     debug | info | warn | error (default info); JSON lines on stderr

Stdio mode:
  --drain-timeout-ms N  after the client closes stdin, how long calls in flight may still take (default 30000)
  --exit-grace-ms N     then how long the server may take to exit before SIGTERM, and after it before SIGKILL
                        (default 2000; a server that flushes its own spans to a slow backend may need more)

HTTP mode (docs/proxy.md, "A well-behaved local server", has each bound and check):
  --allowed-hosts LIST    Host names served besides localhost, 127.0.0.1, [::1] and --host; * for any
  --allowed-origins LIST  browser Origins (host names or scheme://host:port) allowed besides loopback; * for any
  --max-body-mb N         a request body, and an answer message read, at most (default 16; larger bodies: 413)
  --max-buffered-mb N     message bytes held at once over all requests (default 128; past it: 503)
  --max-sessions N        MCP sessions followed at once (default 10000; the least recently used goes first)
  --max-connections N     client connections at once (default 1024; the longest idle goes first)
  --idle-timeout-ms N     a connection without a request in progress is closed after this long (default 10000)
  -h, --help            this text
`;

const httpUrl = z.url({ protocol: /^https?$/ });
const count = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** A comma-separated list as the flags take it: items trimmed, empty ones left out. */
const list = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((i) => i.trim())
      .filter((i) => i.length > 0),
  )
  .pipe(z.array(z.string().max(256)).max(256));

/** The HTTP mode's bounds and checks, with their defaults (docs/proxy.md lists them). */
export const HTTP_DEFAULTS = {
  maxBodyMb: 16,
  maxBufferedMb: 128,
  maxSessions: 10_000,
  maxConnections: 1024,
  idleTimeoutMs: 10_000,
} as const;
export const DRAIN_TIMEOUT_MS = 30_000;
export const EXIT_GRACE_MS = 2_000;
const common = {
  otlpEndpoint: httpUrl.optional(),
  serviceName: z.string().min(1).max(256).optional(),
  captureContent: z.boolean(),
  enforceOutput: z.boolean(),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']),
};
export const proxyOptionsSchema = z.discriminatedUnion('mode', [
  z.object({
    mode: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()),
    drainTimeoutMs: count(0, 3_600_000).default(DRAIN_TIMEOUT_MS),
    exitGraceMs: count(0, 600_000).default(EXIT_GRACE_MS),
    ...common,
  }),
  z.object({
    mode: z.literal('http'),
    upstream: httpUrl,
    port: z.coerce.number().int().min(0).max(65535),
    host: z.string().min(1),
    allowedHosts: list.default([]),
    allowedOrigins: list.default([]),
    maxBodyMb: count(1, 1024).default(HTTP_DEFAULTS.maxBodyMb),
    maxBufferedMb: count(1, 16_384).default(HTTP_DEFAULTS.maxBufferedMb),
    maxSessions: count(1, 1_000_000).default(HTTP_DEFAULTS.maxSessions),
    maxConnections: count(1, 1_000_000).default(HTTP_DEFAULTS.maxConnections),
    idleTimeoutMs: count(100, 3_600_000).default(HTTP_DEFAULTS.idleTimeoutMs),
    ...common,
  }),
]);
export type ProxyOptions = z.infer<typeof proxyOptionsSchema>;

const HTTP_ONLY = new Set([
  'allowed-hosts',
  'allowed-origins',
  'max-body-mb',
  'max-buffered-mb',
  'max-sessions',
  'max-connections',
  'idle-timeout-ms',
]);

export type ParsedArgs =
  | { ok: true; options: ProxyOptions }
  | { ok: false; help: boolean; error?: string };

/** Reads argv (without node and the script); a usage problem is a value, never a throw. */
export function parseProxyArgs(argv: string[]): ParsedArgs {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const child = split === -1 ? [] : argv.slice(split + 1);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: own,
      strict: true,
      allowPositionals: false,
      options: {
        'otlp-endpoint': { type: 'string' },
        'service-name': { type: 'string' },
        'capture-content': { type: 'boolean' },
        'enforce-output': { type: 'boolean' },
        upstream: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'allowed-hosts': { type: 'string' },
        'allowed-origins': { type: 'string' },
        'max-body-mb': { type: 'string' },
        'max-buffered-mb': { type: 'string' },
        'max-sessions': { type: 'string' },
        'max-connections': { type: 'string' },
        'idle-timeout-ms': { type: 'string' },
        'drain-timeout-ms': { type: 'string' },
        'exit-grace-ms': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return {
      ok: false,
      help: false,
      error: error instanceof Error ? error.message : String(error),
    };
  }
  if (values.help) return { ok: false, help: true };
  const shared = {
    otlpEndpoint: values['otlp-endpoint'],
    serviceName: values['service-name'],
    captureContent: values['capture-content'] === true,
    enforceOutput: values['enforce-output'] === true,
    logLevel: values['log-level'] ?? 'info',
  };
  const raw =
    values.upstream !== undefined
      ? {
          mode: 'http',
          upstream: values.upstream,
          port: values.port,
          host: values.host ?? '127.0.0.1',
          allowedHosts: values['allowed-hosts'],
          allowedOrigins: values['allowed-origins'],
          maxBodyMb: values['max-body-mb'],
          maxBufferedMb: values['max-buffered-mb'],
          maxSessions: values['max-sessions'],
          maxConnections: values['max-connections'],
          idleTimeoutMs: values['idle-timeout-ms'],
          ...shared,
        }
      : {
          mode: 'stdio',
          command: child[0],
          args: child.slice(1),
          drainTimeoutMs: values['drain-timeout-ms'],
          exitGraceMs: values['exit-grace-ms'],
          ...shared,
        };
  if (raw.mode === 'http' && child.length > 0)
    return {
      ok: false,
      help: false,
      error: '--upstream and a command after -- exclude each other',
    };
  if (raw.mode === 'stdio' && values.port !== undefined)
    return { ok: false, help: false, error: '--port needs --upstream' };
  const misplaced = Object.keys(values).find((k) =>
    raw.mode === 'stdio' ? HTTP_ONLY.has(k) : k === 'drain-timeout-ms' || k === 'exit-grace-ms',
  );
  if (misplaced)
    return {
      ok: false,
      help: false,
      error: `--${misplaced} applies to ${raw.mode === 'stdio' ? 'HTTP' : 'stdio'} mode only`,
    };
  const parsed = proxyOptionsSchema.safeParse(raw);
  if (parsed.success) return { ok: true, options: parsed.data };
  const problem = parsed.error.issues
    .map((i) => {
      const at = String(i.path[0] ?? '');
      if (at === 'command') return 'a server command is needed after --';
      return `${at.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${i.message}`;
    })
    .join('; ');
  return { ok: false, help: false, error: problem };
}
