// The MCP side of `toolscope replay`: a real MCP client (the SDK's) over stdio to a command, or over Streamable
// HTTP to a URL; the tools the server lists now (annotations, contract hash, output check); and one recorded
// input sent as a `tools/call`, its answer read with the outcome rules the proxy and the adapters use.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Observed } from '@toolscope/instrument/fixtures';
import {
  compileSchemaCheck,
  outcomeOfPlainResult,
  schemaHashOf,
} from '@toolscope/instrument/proxy-kit';
import { MCP_META_SCHEMA_HASH } from '@toolscope/instrument/semconv';
import { z } from 'zod';
import { COLLECTOR_VERSION } from '../version.js';

/** A tool as the server lists it now: what decides whether a case may run, and how its answer is read. */
export type LiveTool = {
  readOnlyHint: boolean | undefined;
  idempotentHint: boolean | undefined;
  /** Its contract hash: declared in `_meta` by a `registerMcpTool` tool, else of its listed schemas. */
  schemaHash: string;
  outputSchema: unknown;
};

const entrySchema = z.object({
  name: z.string(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z
    .looseObject({ readOnlyHint: z.boolean().optional(), idempotentHint: z.boolean().optional() })
    .optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

export type Target = { server: string } | { url: string };

/** An open session with the server, or why it cannot be had. */
export type Session = {
  tools: Map<string, LiveTool>;
  call(tool: string, input: unknown): Promise<{ observed: Observed; said: string }>;
  close(): Promise<void>;
};

const CALL_TIMEOUT_MS = 60_000;

function transportOf(target: Target, stderr: string[]): Transport {
  if ('url' in target) return new StreamableHTTPClientTransport(new URL(target.url));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  // The command as a shell reads it, as an MCP client's config gives it; the server gets this environment.
  const t = new StdioClientTransport({
    command: '/bin/sh',
    args: ['-c', target.server],
    env,
    stderr: 'pipe',
  });
  t.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk.toString('utf8'));
    if (stderr.length > 20) stderr.shift();
  });
  return t;
}

async function listTools(client: Client): Promise<Map<string, LiveTool>> {
  const tools = new Map<string, LiveTool>();
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    for (const raw of page.tools) {
      const e = entrySchema.safeParse(raw);
      if (!e.success) continue;
      const declared = e.data._meta?.[MCP_META_SCHEMA_HASH];
      tools.set(e.data.name, {
        readOnlyHint: e.data.annotations?.readOnlyHint,
        idempotentHint: e.data.annotations?.idempotentHint,
        schemaHash:
          typeof declared === 'string' && /^[0-9a-f]{16}$/.test(declared)
            ? declared
            : schemaHashOf(e.data.inputSchema ?? {}, e.data.outputSchema ?? {}),
        outputSchema: e.data.outputSchema,
      });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** What a `tools/call` came back as: the envelope's (or the SDK's) failure, a broken output, or success. */
function observedOf(
  result: unknown,
  input: unknown,
  tool: LiveTool | undefined,
): { observed: Observed; said: string } {
  const outcome = outcomeOfPlainResult(result, input, undefined);
  if (!outcome.ok) {
    const paths = outcome.issues?.map((i) => i.path).sort() ?? null;
    return {
      observed: { ok: false, code: outcome.code, issuePaths: paths },
      said: outcome.reason ?? '',
    };
  }
  const check = tool?.outputSchema ? compileSchemaCheck(tool.outputSchema) : null;
  const structured =
    typeof result === 'object' && result !== null
      ? Reflect.get(result, 'structuredContent')
      : undefined;
  const issues = check ? check(structured) : undefined;
  if (issues)
    return {
      observed: { ok: false, code: 'INVALID_OUTPUT', issuePaths: issues.map((i) => i.path).sort() },
      said: 'structuredContent breaks the advertised outputSchema',
    };
  return { observed: { ok: true }, said: '' };
}

/** Connects to the server and lists its tools; throws with the server's last words when it cannot. */
export async function openSession(target: Target): Promise<Session> {
  const stderr: string[] = [];
  const client = new Client({ name: 'toolscope-replay', version: COLLECTOR_VERSION });
  try {
    await client.connect(transportOf(target, stderr));
    const tools = await listTools(client);
    return {
      tools,
      call: async (tool, input) => {
        try {
          const result = await client.request(
            {
              method: 'tools/call',
              params: { name: tool, arguments: input as Record<string, unknown> },
            },
            CallToolResultSchema,
            { timeout: CALL_TIMEOUT_MS },
          );
          return observedOf(result, input, tools.get(tool));
        } catch (error) {
          if (!(error instanceof McpError)) throw error;
          // A protocol error: the SDK's own input check (-32602) is a refused input, anything else a failure.
          const code = error.code === ErrorCode.InvalidParams ? 'INVALID_INPUT' : 'ERROR';
          return { observed: { ok: false, code, issuePaths: null }, said: error.message };
        }
      },
      close: () => client.close(),
    };
  } catch (error) {
    // The connect's own error (with the server's last words) is thrown below; closing a client whose connect
    // failed may fail too, and only stops a child that is already gone.
    await client.close().catch(() => undefined);
    const last = stderr.join('').trim().split('\n').slice(-3).join(' | ');
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`${why}${last ? ` (the server said: ${last})` : ''}`);
  }
}
