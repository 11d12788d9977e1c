// Hash routes: the dashboard is one static page, so every view is addressable and shareable without server
// routes, and a token in the fragment never reaches a server log.
/** The calls of one MCP client (and one version of it), which the overview's tool list can be narrowed to. */
export type ClientFilter = { client: string; clientVersion?: string };

export type Route =
  | { view: 'overview'; client?: ClientFilter }
  | { view: 'flags' }
  | { view: 'tool'; name: string }
  | { view: 'trace'; traceId: string; spanId?: string }
  | { view: 'conversation'; id: string }
  | { view: 'calls'; tool?: string; code?: string; callId?: string }
  | { view: 'search'; q: string };

const param = (p: URLSearchParams, key: string): string | undefined => p.get(key) ?? undefined;

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = raw.split('?', 2);
  const p = new URLSearchParams(search);
  const [head, ...rest] = path.split('/');
  const tail = rest.length > 0 ? safeDecode(rest.join('/')) : '';
  switch (head) {
    case 'flags':
      return { view: 'flags' };
    case 'tools':
      return tail ? { view: 'tool', name: tail } : { view: 'overview' };
    case 'traces': {
      if (!tail) return { view: 'overview' };
      const spanId = param(p, 'span');
      return spanId ? { view: 'trace', traceId: tail, spanId } : { view: 'trace', traceId: tail };
    }
    case 'conversations':
      return tail ? { view: 'conversation', id: tail } : { view: 'overview' };
    case 'calls': {
      const r: Route = { view: 'calls' };
      const tool = param(p, 'tool');
      const code = param(p, 'code');
      const callId = param(p, 'callId');
      if (tool) r.tool = tool;
      if (code) r.code = code;
      if (callId) r.callId = callId;
      return r;
    }
    case 'search':
      return { view: 'search', q: param(p, 'q') ?? '' };
    default: {
      const client = param(p, 'client');
      if (!client) return { view: 'overview' };
      const clientVersion = param(p, 'clientVersion');
      return { view: 'overview', client: clientVersion ? { client, clientVersion } : { client } };
    }
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const enc = encodeURIComponent;

/** Hrefs of the views; values from data are always percent-encoded into the fragment. */
export const href = {
  /** The overview; with a client, its tool list counts that client's calls only. */
  overview: (client?: ClientFilter) => {
    if (!client) return '#/';
    const p = new URLSearchParams({ client: client.client });
    if (client.clientVersion) p.set('clientVersion', client.clientVersion);
    return `#/?${p.toString()}`;
  },
  flags: () => '#/flags',
  tool: (name: string) => `#/tools/${enc(name)}`,
  trace: (traceId: string, spanId?: string) =>
    `#/traces/${enc(traceId)}${spanId ? `?span=${enc(spanId)}` : ''}`,
  conversation: (id: string) => `#/conversations/${enc(id)}`,
  calls: (f: { tool?: string; code?: string; callId?: string }) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(f)) if (v) p.set(k, v);
    const s = p.toString();
    return `#/calls${s ? `?${s}` : ''}`;
  },
  search: (q: string) => `#/search?${new URLSearchParams({ q }).toString()}`,
};
