// The legs of a client's multi round-trip calls (2026-07-28, decision 0046). SDK v2's client answers an
// `input_required` answer itself (its registered elicitation, sampling and roots handlers) and sends the call again
// through its internal codec, not through `client.request`: the instrumented `request` sees one call, and the
// legs only pass its transport. So the transport is watched, for the clients that negotiated that revision: an
// `input_required` answer to a leg of an open call starts a wait, and the `tools/call` that echoes its
// `requestState` is the call's next leg.
import { type LogicalCall, nextLeg, waitForInput } from '../logical-call.js';
import { echoedStateOf } from './answer.js';
import { isRecord } from './sdk-access.js';

type Send = (message: unknown, ...rest: unknown[]) => unknown;
type OnMessage = (message: unknown, ...rest: unknown[]) => unknown;

/** One open call of the client: the JSON-RPC ids of its legs so far, and its record. */
export type ClientLegCall = { ids: string[]; logical: LogicalCall };

const watchedTransports = new WeakSet<object>();

/** The open calls of one client, by the id of each of their legs and, while waiting, by `requestState`. */
export class ClientLegs {
  readonly #byId = new Map<string, ClientLegCall>();
  readonly #waiting = new Map<string, ClientLegCall>();

  /** Follows a call whose first leg goes out under `id`. */
  open(id: string, logical: LogicalCall): ClientLegCall {
    const call = { ids: [id], logical };
    this.#byId.set(id, call);
    return call;
  }

  /** Forgets a call that has its final answer (or failed). */
  close(call: ClientLegCall): void {
    for (const id of call.ids) this.#byId.delete(id);
    if (call.logical.waitingSince !== undefined)
      for (const [state, c] of this.#waiting) if (c === call) this.#waiting.delete(state);
  }

  /** Watches `transport`'s messages (once per transport): answers that ask for input, and the legs that follow. */
  watch(transport: unknown): void {
    if (!isRecord(transport) || watchedTransports.has(transport)) return;
    const send = transport.send;
    const onmessage = transport.onmessage;
    if (typeof send !== 'function' || typeof onmessage !== 'function') return;
    watchedTransports.add(transport);
    const legs = this;
    transport.send = function watchedSend(this: unknown, message: unknown, ...rest: unknown[]) {
      legs.#sent(message);
      return (send as Send).call(this, message, ...rest);
    };
    transport.onmessage = function watchedMessage(
      this: unknown,
      message: unknown,
      ...rest: unknown[]
    ) {
      legs.#received(message);
      return (onmessage as OnMessage).call(this, message, ...rest);
    };
  }

  #received(message: unknown): void {
    if (this.#byId.size === 0 || !isRecord(message) || !isRecord(message.result)) return;
    const result = message.result;
    if (result.resultType !== 'input_required') return;
    const call = this.#byId.get(String(message.id));
    if (!call) return;
    const state = typeof result.requestState === 'string' ? result.requestState : '';
    // The hash is only the server side's linking key; the client keeps the raw state to match its next leg.
    waitForInput(call.logical, '', performance.now());
    call.logical.awaits = undefined;
    this.#waiting.set(state, call);
  }

  #sent(message: unknown): void {
    if (this.#waiting.size === 0 || !isRecord(message) || message.method !== 'tools/call') return;
    const state = echoedStateOf(isRecord(message.params) ? message.params : undefined);
    if (state === undefined) return;
    const call = this.#waiting.get(state);
    if (!call) return;
    this.#waiting.delete(state);
    nextLeg(call.logical, performance.now());
    const id = String(message.id);
    call.ids.push(id);
    this.#byId.set(id, call);
  }
}
