// Builds the collector's HTTP app (fastify), separate from listening, so tests can use it on any port.
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  LogController,
} from 'fastify';
import {
  COLLECTOR_ERRORS,
  CollectorError,
  type CollectorErrorCode,
  codeOfStatus,
} from '../errors.js';
import { BodyBudget } from '../ingest/body-budget.js';
import { type ContentPolicy, defaultContentPolicy } from '../ingest/content-policy.js';
import type { MemoryLimiter } from '../ingest/memory-limiter.js';
import type { WriteQueue } from '../ingest/write-queue.js';
import { CollectorMetrics } from '../ops/metrics.js';
import { CONTENT_TYPES, statusBody } from '../otlp/responses.js';
import type { Storage } from '../storage/contract.js';
import { tokenCheck } from './auth.js';
import { registerContractRoutes } from './contract-routes.js';
import { registerDetailRoutes } from './detail-routes.js';
import { registerFixtureRoutes } from './fixture-routes.js';
import { OPEN_ROUTES, type Readiness, registerOpsRoutes } from './ops-routes.js';
import { BODIES_IN_FLIGHT, encodingOf, registerOtlpRoute, spreadRetryAfter } from './otlp-route.js';
import { registerQueryRoutes } from './query-routes.js';
import { registerRecoveryRoutes } from './recovery-routes.js';
import { sendError } from './replies.js';
import {
  isDashboardAsset,
  isDashboardPage,
  loadDashboard,
  registerStaticRoutes,
  SECURITY_HEADERS,
} from './static-routes.js';

export type AppOptions = {
  storage: Storage;
  queue: WriteQueue;
  /** Hash key and capture rules for foreign tool spans; a random key and no capture when absent. */
  content?: ContentPolicy;
  /** Largest accepted body, compressed or not, in bytes. */
  maxBodyBytes: number;
  /** Ingest bodies held in memory at once (received plus inflated); default 64 MiB. */
  bodyBudget?: BodyBudget;
  /** Refuses ingest past the soft memory limit (--memory-limit-mib); no limit when absent. */
  memory?: MemoryLimiter | undefined;
  token?: string | undefined;
  /** Folder of the built dashboard; defaults to the one built into this package. */
  dashboardDir?: string | undefined;
  retryAfterSeconds?: number;
  logger?: boolean;
  /** A pino logger to use instead (JSON lines; `toolscope serve --log-level`). */
  loggerInstance?: FastifyBaseLogger;
  /** Counters and histograms behind GET /metrics; a fresh set when absent. */
  metrics?: CollectorMetrics;
  /** What GET /readyz asks; the storage's own check when absent. */
  ready?: Readiness;
  version: string;
};

export const DEFAULT_INFLIGHT_BYTES = 64 * 1024 * 1024;

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(opts.loggerInstance
      ? { loggerInstance: opts.loggerInstance }
      : { logger: opts.logger ?? false }),
    // One line per request at ingest rates would drown the failures; those are logged where they happen.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.maxBodyBytes,
    // A path parameter holds up to 256 characters as stored (a tool name, an id); percent-encoded UTF-8 takes
    // up to 12 bytes per character.
    routerOptions: { maxParamLength: 256 * 12 },
    // The router's own refusals (a malformed URL, a parameter over that length) in the API's error shape.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      void sendError(reply, 'INVALID_PARAMETER', error.message, error.statusCode ?? 400);
    },
  });
  const metrics = opts.metrics ?? new CollectorMetrics();
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequests.inc({
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      status: String(reply.statusCode),
    });
  });
  app.removeAllContentTypeParsers();
  // Bodies arrive as raw buffers; each route decides what they mean (protobuf, JSON, gzip).
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.addHook('onSend', async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
  });

  const dashboard = loadDashboard(opts.dashboardDir);
  const check = tokenCheck(opts.token);
  if (check) {
    app.addHook('onRequest', async (request, reply) => {
      const read = request.method === 'GET' || request.method === 'HEAD';
      // Hashed script and style files hold no data; the page needs them to show its token prompt.
      if (read && isDashboardAsset(request.url)) return;
      if (read && OPEN_ROUTES.has(request.url.split('?')[0] ?? '')) return;
      if (check(request.headers.authorization)) return;
      if (read && isDashboardPage(request.url) && dashboard.index) {
        // A browser cannot send the token on navigation: the 401 page is the dashboard, which asks for it.
        await reply
          .code(COLLECTOR_ERRORS.UNAUTHORIZED.status)
          .header('www-authenticate', 'Bearer')
          .header('cache-control', 'no-store')
          .type(dashboard.index.type)
          .send(dashboard.index.body);
        return;
      }
      await sendError(reply.header('www-authenticate', 'Bearer'), 'UNAUTHORIZED');
    });
  }

  const retryAfterSeconds = opts.retryAfterSeconds ?? 1;
  app.setErrorHandler(
    (error: { code?: string; statusCode?: number; message: string }, request, reply) => {
      const code: CollectorErrorCode =
        error instanceof CollectorError
          ? error.code
          : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? 'PAYLOAD_TOO_LARGE'
            : error.code === BODIES_IN_FLIGHT
              ? 'BODIES_IN_FLIGHT'
              : codeOfStatus(error.statusCode ?? 500);
      const { status, rpc } = COLLECTOR_ERRORS[code];
      // Unavailable storage logged why itself, once: the requests it refuses are not logged again.
      if (status >= 500 && code !== 'STORAGE_UNAVAILABLE')
        request.log.error({ err: error }, 'request failed');
      if (status === 503) reply.header('retry-after', String(retryAfterSeconds));
      if (code === 'BODIES_IN_FLIGHT')
        reply.header('retry-after', spreadRetryAfter(retryAfterSeconds));
      // A 5xx says only what the table says: its cause is in the log, never in the answer.
      const message = status >= 500 ? COLLECTOR_ERRORS[code].message : error.message;
      if (request.url.startsWith('/v1/')) {
        // OTLP clients read the answer in the encoding they sent (google.rpc.Status).
        const encoding = encodingOf(request.headers['content-type']) ?? 'json';
        return reply
          .code(status)
          .type(CONTENT_TYPES[encoding])
          .send(statusBody(encoding, rpc, message));
      }
      return reply.code(status).type('application/json').send({ error: { code, message } });
    },
  );
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 'NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]}`),
  );

  const budget = opts.bodyBudget ?? new BodyBudget(DEFAULT_INFLIGHT_BYTES);
  registerOtlpRoute(app, {
    queue: opts.queue,
    maxBodyBytes: opts.maxBodyBytes,
    budget,
    memory: opts.memory,
    retryAfterSeconds,
    metrics,
    content: opts.content ?? defaultContentPolicy(),
  });
  registerQueryRoutes(app, {
    storage: opts.storage,
    queue: opts.queue,
    budget,
    version: opts.version,
  });
  registerDetailRoutes(app, opts.storage);
  registerContractRoutes(app, opts.storage);
  registerFixtureRoutes(app, opts.storage);
  registerRecoveryRoutes(app, opts.storage);
  registerOpsRoutes(app, {
    metrics,
    ready: opts.ready ?? (() => opts.storage.ready()),
    version: opts.version,
  });
  registerStaticRoutes(app, dashboard);
  return app;
}
