// One proxy run's shared parts: the telemetry, the hasher and redactor, and an observer per MCP session, each
// with telemetry of its own (its server's name) and a conversation id of its own.
import { randomBytes, randomUUID } from 'node:crypto';
import { createHasher, createRedactor, readEnvConfig } from '@toolscope/instrument/proxy-kit';
import type { CallContext } from './call-span.js';
import { serviceOfCommand, serviceOfUrl } from './fallback-service.js';
import type { Logger } from './log.js';
import { LogicalCalls } from './logical-calls.js';
import { McpObserver, type ObserverOptions } from './observer.js';
import type { ProxyOptions } from './options.js';
import { ProxyTelemetry, tracesUrl } from './telemetry.js';
import { ToolTable } from './tool-table.js';

/** What every session of one proxy process shares. */
export type ProxyRun = {
  telemetry: ProxyTelemetry;
  tools: ToolTable;
  /** Calls waiting for a later leg or a poll, across the run's sessions and connections. */
  calls: LogicalCalls;
  /** An observer of a new session; `conversationOf` for traffic without one (see ObserverOptions). */
  observe(
    transport: CallContext['transport'],
    sessionId?: string,
    conversationOf?: ObserverOptions['conversationOf'],
  ): McpObserver;
};

/** Sets up telemetry, hashing and capture from the options and the environment. */
export function createRun(options: ProxyOptions, log: Logger, env = process.env): ProxyRun {
  const config = readEnvConfig(env);
  if (!config.hashKey)
    log.log(
      'warn',
      'no TOOLSCOPE_HASH_KEY: input and output hashes use a per-process key and will not match other processes',
    );
  // An explicit random key: the instrument package's own warning is a Node warning line, not JSON.
  const hasher = createHasher(config.hashKey ?? randomBytes(32).toString('hex'));
  const capture = options.captureContent || config.captureContent;
  const redactor = capture ? createRedactor({}, undefined) : undefined;
  const url = tracesUrl(options.otlpEndpoint, env);
  const fallbackService =
    options.mode === 'stdio'
      ? serviceOfCommand(options.command, options.args)
      : serviceOfUrl(options.upstream);
  const telemetry = new ProxyTelemetry({
    url,
    serviceName: options.serviceName,
    fallbackService,
    log,
  });
  const tools = new ToolTable();
  const calls = new LogicalCalls(hasher);
  log.log('info', 'toolscope-proxy started', {
    mode: options.mode,
    traces: withoutSecrets(url),
    capture,
  });
  return {
    telemetry,
    tools,
    calls,
    observe: (transport, sessionId, conversationOf) =>
      new McpObserver({
        ...(conversationOf ? { conversationOf } : {}),
        telemetry: telemetry.session(),
        tools,
        calls,
        log,
        enforceOutput: options.enforceOutput,
        context: {
          transport,
          protocolVersion: undefined,
          sessionId,
          clientName: undefined,
          clientVersion: undefined,
          // Unguessable, and unique per session across proxies: nobody can join another's conversation.
          conversationId: randomUUID(),
          hasher,
          redactor,
        },
      }),
  };
}

/** A URL as it may be logged: no user or password. */
function withoutSecrets(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
