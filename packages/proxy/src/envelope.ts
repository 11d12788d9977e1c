// Who is at either end of a session, as its messages say it: the client and the protocol version (`initialize`,
// or in the 2026-07-28 revision the `_meta` envelope of every request, the only place a stdio proxy can read them:
// the client's `server/discover` probe runs on a sibling process) and the server (`initialize`'s `serverInfo`, or
// the `_meta` of `server/discover` and of every 2026-07-28 answer).
import * as sc from '@toolscope/instrument/semconv';
import type { CallContext } from './call-span.js';
import type { ServerIdentity } from './otlp/resources.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A name or version as the proxy keeps it: a non-empty string, cut to `max` characters. */
const text = (v: unknown, max: number): string | undefined =>
  typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined;

/** The client's name and version from a `clientInfo` object (`initialize`'s, or the envelope's). */
function readClient(info: unknown, c: CallContext): void {
  if (!isRecord(info)) return;
  const name = text(info.name, 256);
  if (name === undefined) return;
  c.clientName = name;
  c.clientVersion = text(info.version, 64);
}

/** What an `initialize` request says of the client. */
export function readInitialize(params: Record<string, unknown> | undefined, c: CallContext): void {
  readClient(params?.clientInfo, c);
}

/**
 * A request's 2026-07-28 envelope, when it carries one: the client and protocol version of this very request
 * (a session keeps what its latest request said; a 2025 request without an envelope leaves `initialize`'s).
 */
export function readEnvelope(meta: Record<string, unknown> | undefined, c: CallContext): void {
  if (meta === undefined) return;
  const info = meta[sc.MCP_META_CLIENT_INFO];
  if (info !== undefined) readClient(info, c);
  const version = text(meta[sc.MCP_META_PROTOCOL_VERSION], 64);
  if (version !== undefined) c.protocolVersion = version;
}

/** The client a request's envelope names, as one key (`name\nversion`; empty without an envelope). */
export function envelopeClientKey(meta: Record<string, unknown> | undefined): string {
  const info = meta?.[sc.MCP_META_CLIENT_INFO];
  if (!isRecord(info)) return '';
  return `${text(info.name, 256) ?? ''}\n${text(info.version, 64) ?? ''}`;
}

/**
 * The server's name and version from an answer: `_meta`'s `serverInfo` (any 2026-07-28 answer), else, in an
 * answer to `initialize` or `server/discover` (`bootstrap`), a top-level `serverInfo`.
 */
export function readServer(result: unknown, server: ServerIdentity, bootstrap: boolean): void {
  if (!isRecord(result)) return;
  const meta = result._meta;
  const fromMeta = isRecord(meta) ? meta[sc.MCP_META_SERVER_INFO] : undefined;
  const info = fromMeta ?? (bootstrap ? result.serverInfo : undefined);
  if (!isRecord(info)) return;
  const name = text(info.name, 256);
  if (name === undefined) return;
  server.name = name;
  server.version = text(info.version, 64);
}

/**
 * Whether a protocol version is the stateless revision (2026-07-28) or later: it has no sessions, and
 * `mcp.session.id` must not be set (OTel's MCP conventions have not caught up with it). Versions are dates.
 */
export const isStatelessRevision = (version: string | undefined): boolean =>
  version !== undefined && version >= '2026-07-28';
