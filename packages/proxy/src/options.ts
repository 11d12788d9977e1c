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
  -h, --help            this text
`;

const httpUrl = z.url({ protocol: /^https?$/ });
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
    ...common,
  }),
  z.object({
    mode: z.literal('http'),
    upstream: httpUrl,
    port: z.coerce.number().int().min(0).max(65535),
    host: z.string().min(1),
    ...common,
  }),
]);
export type ProxyOptions = z.infer<typeof proxyOptionsSchema>;

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
          ...shared,
        }
      : { mode: 'stdio', command: child[0], args: child.slice(1), ...shared };
  if (raw.mode === 'http' && child.length > 0)
    return {
      ok: false,
      help: false,
      error: '--upstream and a command after -- exclude each other',
    };
  if (raw.mode === 'stdio' && values.port !== undefined)
    return { ok: false, help: false, error: '--port needs --upstream' };
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
