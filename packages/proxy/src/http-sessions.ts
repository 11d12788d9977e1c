// The HTTP proxy's observers: one per MCP session (`Mcp-Session-Id`, or the older transport's `sessionId`), or
// per client connection where there is no session. Session ids come from clients, so the map is bounded: past
// `maxSessions`, the least recently used session goes, one the upstream never named before one it did (a flood
// of made-up ids evicts only its own), and its calls still in flight end as unanswered rather than being lost.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { ConversationScopes } from './conversation-scopes.js';
import type { Logger } from './log.js';
import type { McpObserver } from './observer.js';
import type { ProxyRun } from './session.js';

const SESSION = 'mcp-session-id';

/** The session a request names, if any. */
export function sessionOf(req: IncomingMessage): string | undefined {
  const id =
    req.headers[SESSION] ?? new URL(req.url ?? '/', 'http://proxy').searchParams.get('sessionId');
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** Every observer of one HTTP proxy. */
export class HttpSessions {
  readonly #run: ProxyRun;
  readonly #log: Logger;
  readonly #max: number;
  /** Sessions the upstream named (in an answer's header, or an `endpoint` event), least recently used first. */
  readonly #named = new Map<string, McpObserver>();
  /** Sessions only a client named so far, least recently used first. */
  readonly #claimed = new Map<string, McpObserver>();
  // Traffic without a session is observed per client connection (an answer comes back on its request's), and
  // its calls are grouped into conversations by client (conversation-scopes.ts).
  readonly #byConnection = new WeakMap<Socket, McpObserver>();
  readonly #connections = new Set<McpObserver>();
  readonly #scopes = new ConversationScopes();
  #evicted = 0;

  constructor(run: ProxyRun, maxSessions: number, log: Logger) {
    this.#run = run;
    this.#max = maxSessions;
    this.#log = log;
  }

  /** Sessions followed now. */
  get size(): number {
    return this.#named.size + this.#claimed.size;
  }

  get evicted(): number {
    return this.#evicted;
  }

  has(session: string): boolean {
    return this.#named.has(session);
  }

  /** The observer of a request: its session's, else its connection's. */
  observerFor(req: IncomingMessage): McpObserver {
    const key = sessionOf(req);
    if (key) {
      const named = this.#named.get(key);
      if (named) return touch(this.#named, key, named);
      const claimed = this.#claimed.get(key);
      if (claimed) return touch(this.#claimed, key, claimed);
      const made = this.#run.observe('tcp', key);
      this.#makeRoom();
      this.#claimed.set(key, made);
      return made;
    }
    let observer = this.#byConnection.get(req.socket);
    if (!observer) {
      const address = req.socket.remoteAddress ?? '';
      const made = this.#run.observe('tcp', undefined, (meta) => this.#scopes.of(address, meta));
      this.#byConnection.set(req.socket, made);
      this.#connections.add(made);
      req.socket.once('close', () => this.#connections.delete(made));
      observer = made;
    }
    return observer;
  }

  /** The upstream named `session` in an answer to traffic `observer` followed (on `socket`). */
  remember(session: string, observer: McpObserver, socket: Socket): void {
    if (this.#named.has(session)) return;
    const claimed = this.#claimed.get(session);
    this.#claimed.delete(session);
    const kept = claimed ?? observer;
    if (!claimed) this.#makeRoom();
    this.#named.set(session, kept);
    kept.setSession(session);
    // The connection's observer became the session's: the connection's next session-less traffic is new.
    if (this.#byConnection.get(socket) === kept) {
      this.#byConnection.delete(socket);
      this.#connections.delete(kept);
    }
  }

  /** A client ended its session (DELETE). */
  forget(session: string): void {
    for (const map of [this.#named, this.#claimed]) {
      const observer = map.get(session);
      if (!observer) continue;
      observer.endAll();
      map.delete(session);
    }
  }

  /** Ends every call in flight (the proxy stops); how many there were. */
  endAll(): number {
    let ended = 0;
    for (const map of [this.#named, this.#claimed])
      for (const observer of map.values()) ended += observer.endAll();
    for (const observer of this.#connections) ended += observer.endAll();
    return ended;
  }

  #makeRoom(): void {
    if (this.size < this.#max) return;
    const map = this.#claimed.size > 0 ? this.#claimed : this.#named;
    const oldest = map.entries().next().value;
    if (!oldest) return;
    const [session, observer] = oldest;
    map.delete(session);
    const calls = observer.endAll();
    this.#evicted++;
    this.#log.once(
      'sessions-evicted',
      'warn',
      'too many sessions: the least recently used is forgotten',
      {
        maxSessions: this.#max,
        ...(calls > 0 ? { callsEndedUnanswered: calls } : {}),
      },
    );
  }
}

/** Marks an entry most recently used (a Map keeps insertion order). */
function touch<T>(map: Map<string, T>, key: string, value: T): T {
  map.delete(key);
  map.set(key, value);
  return value;
}
