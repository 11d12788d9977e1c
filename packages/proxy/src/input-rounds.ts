// Rounds of input inside one request (a 2025 session): the upstream asks the client for input while a call is
// open (the SDK's shim or the handler sends `elicitation/create` and the like inside the `tools/call`), and the
// client answers; each answered request is a round of that call, its wait counted (docs/mcp.md, "One logical
// call"). The 2026-07-28 revision's rounds are requests of their own, paired in logical-calls.ts instead.
import { inputRound, newLogicalCall } from '@toolscope/instrument/proxy-kit';
import * as sc from '@toolscope/instrument/semconv';
import type { OpenCall } from './call-span.js';
import { idKey, parseLine } from './jsonrpc.js';

const INPUT_METHODS: ReadonlySet<string> = new Set(sc.MCP_INPUT_METHODS);
// Input requests the client has not answered yet, at most (a client that never answers must not grow the map).
const MAX_ASKED = 256;

/** The input requests of one session not answered yet, by the request's id. */
export class InputRounds {
  readonly #asked = new Map<string, { call: OpenCall; since: number }>();

  /** Whether an input request waits for the client's answer. */
  get waiting(): boolean {
    return this.#asked.size > 0;
  }

  /**
   * An upstream request: a round of the call it serves when it asks for input and that call is the session's
   * only one in flight (the request does not say which call it serves).
   */
  asked(id: string | number, method: string, inFlight: Iterable<OpenCall>): void {
    if (!INPUT_METHODS.has(method)) return;
    let call: OpenCall | undefined;
    for (const c of inFlight) {
      if (call) return;
      call = c;
    }
    if (!call) return;
    if (this.#asked.size >= MAX_ASKED) this.#asked.clear();
    this.#asked.set(idKey(id), { call, since: performance.now() });
  }

  /** A whole line from the client: its answers to input requests count each round's wait for its call. */
  answered(line: Buffer): void {
    for (const m of parseLine(line.toString('utf8')) ?? []) {
      if ((m.kind !== 'result' && m.kind !== 'error') || m.id === null) continue;
      const asked = this.#asked.get(idKey(m.id));
      if (!asked) continue;
      this.#asked.delete(idKey(m.id));
      asked.call.logical ??= newLogicalCall();
      inputRound(asked.call.logical, performance.now() - asked.since);
    }
  }
}
