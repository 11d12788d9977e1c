// The conversation of traffic without a session (a stateless server; the 2026-07-28 revision has none at all):
// the calls of one client, known by its address and, where the request's `_meta` names it, its name and version,
// with less than half an hour between them. Not the connection: the SDK's v2 client spreads its requests over two
// pooled connections (decision 0036), and a loop split across two conversations is never seen.
import { randomUUID } from 'node:crypto';
import { envelopeClientKey } from './envelope.js';

/** Silence after which a client's next call starts a new conversation. */
export const IDLE_MS = 30 * 60 * 1000;
// Keys are the clients' to make: past this many, the one idle longest is forgotten.
const MAX_SCOPES = 10_000;

type Scope = { id: string; lastMs: number };

/** Conversation ids of session-less clients, one proxy's worth. */
export class ConversationScopes {
  readonly #scopes = new Map<string, Scope>();

  /** The conversation of a call from `address` whose request carries `meta`, at `nowMs`. */
  of(address: string, meta: Record<string, unknown> | undefined, nowMs = Date.now()): string {
    const key = `${address}\n${envelopeClientKey(meta)}`;
    let scope = this.#scopes.get(key);
    if (scope) this.#scopes.delete(key);
    if (!scope || nowMs - scope.lastMs > IDLE_MS) scope = { id: randomUUID(), lastMs: nowMs };
    scope.lastMs = nowMs;
    // Re-inserted: the Map's order is then least recently used first.
    this.#scopes.set(key, scope);
    if (this.#scopes.size > MAX_SCOPES) {
      const oldest = this.#scopes.keys().next().value;
      if (oldest !== undefined) this.#scopes.delete(oldest);
    }
    return scope.id;
  }
}
