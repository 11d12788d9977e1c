// Serves the dashboard (built by @toolscope/dashboard into this package's dashboard/ folder) at `/`. Files
// are read once at start-up: a handful of hashed assets, so no file system access per request and no path
// from a URL ever reaches the file system.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COLLECTOR_ERRORS } from '../errors.js';
import { sendError } from './replies.js';

/** The built dashboard next to src/ and dist/ (both are one level below the package root's api/ parent). */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

export type Asset = { body: Buffer; type: string; immutable: boolean };

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(join(dir, 'index.html'))) return assets;
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const full = join(folder, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const type = TYPES[extname(name)];
        if (!type) continue;
        const url = `/${relative(dir, full).split(sep).join('/')}`;
        assets.set(url, {
          body: readFileSync(full),
          type,
          // Vite puts a content hash in every file name under assets/.
          immutable: url.startsWith('/assets/'),
        });
      }
    }
  };
  walk(dir);
  return assets;
}

export type Dashboard = { assets: Map<string, Asset>; index: Asset | undefined };

/** Reads the built dashboard; `index` is undefined when it has not been built. */
export function loadDashboard(dir: string = DEFAULT_DASHBOARD_DIR): Dashboard {
  const assets = loadAssets(dir);
  return { assets, index: assets.get('/index.html') };
}

const pathOf = (url: string) => url.split('?')[0] ?? '';

/** The dashboard page itself (its 401 answer is the token prompt). */
export function isDashboardPage(url: string): boolean {
  const path = pathOf(url);
  return path === '/' || path === '/index.html';
}

/** The dashboard's hashed script and style files: they carry no data and need no token. */
export function isDashboardAsset(url: string): boolean {
  return pathOf(url).startsWith('/assets/');
}

export function registerStaticRoutes(app: FastifyInstance, dashboard: Dashboard): void {
  const { assets, index } = dashboard;
  const sendIndex = async (_request: FastifyRequest, reply: FastifyReply) => {
    if (!index) {
      return reply
        .code(COLLECTOR_ERRORS.DASHBOARD_NOT_BUILT.status)
        .type('text/plain; charset=utf-8')
        .send(
          'The Toolscope dashboard is not built. Run `pnpm --filter @toolscope/dashboard build` (pnpm start does it) and restart; the API under /api/ works without it.\n',
        );
    }
    return reply.type(index.type).header('cache-control', 'no-cache').send(index.body);
  };
  app.get('/', sendIndex);
  app.get('/index.html', sendIndex);
  app.get('/assets/*', async (request, reply) => {
    const asset = assets.get(pathOf(request.url));
    if (!asset) {
      return sendError(reply, 'NOT_FOUND', 'no such dashboard asset');
    }
    return reply
      .type(asset.type)
      .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(asset.body);
  });
}

/** Headers on every response: the dashboard renders attacker-controlled strings, so no script but ours runs. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};
