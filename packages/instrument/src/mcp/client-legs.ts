// The legs of a client's calls that ask for input (decision 0046). In 2026-07-28 SDK v2's client answers an
// `input_required` answer itself (its registered elicitation, sampling and roots handlers) and sends the call again
// through its internal codec, not through `client.request`: the instrumented `request` sees one call, and the legs
// only pass its transport, which is watched for the clients that negotiated that revision (an `input_required`
// answer to a leg of an open call starts a wait; the `tools/call` that echoes its `requestState` is the next leg).
// On a 2025 connection the server asks with requests of its own (`elicitation/create`, …) inside the call: the
// client's handlers of those are timed, and counted for the call when it is the client's only one open.
import {
  inputRound,
  type LogicalCall,
  newLogicalCall,
  nextLeg,
  waitForInput,
} from '../logical-call.js';
import { MCP_INPUT_METHODS } from '../semconv.js';
import { echoedStateOf } from './answer.js';
import { wrapRequestHandler } from './handlers.js';
import { isRecord, type RawHandler } from './sdk-access.js';

type Send = (message: unknown, ...rest: unknown[]) => unknown;
type OnMessage = (message: unknown, ...rest: unknown[]) => unknown;

/** One open 2026-07-28 call of the client: the JSON-RPC ids of its legs so far, and its record. */
export type ClientLegCall = { ids: string[]; logical: LogicalCall };

const watchedTransports = new WeakSet<object>();

/** The open calls of one client, by the id of each of their legs and, while waiting, by `requestState`. */
export class ClientLegs {
  readonly #byId = new Map<string, ClientLegCall>();
  readonly #waiting = new Map<string, ClientLegCall>();
  /** Calls open now, and the token of the last one opened: a 2025-era input request's call when it is alone. */
  #open = 0;
  #token = 0;
  #last = 0;
  /** The rounds of input counted for the call of `token` (a 2025 connection). */
  #rounds: { token: number; logical: LogicalCall } | undefined;

  /** A call begins: its token, for `end` (no object made per call). */
  begin(): number {
    this.#open++;
    this.#last = ++this.#token;
    return this.#last;
  }

  /** Follows, on the transport, the legs of a 2026-07-28 call whose first leg goes out under `id`. */
  open(id: string): ClientLegCall {
    const call: ClientLegCall = { ids: [id], logical: newLogicalCall() };
    this.#byId.set(id, call);
    return call;
  }

  /** A call has its final answer (or failed): what it went through, if anything. */
  end(token: number, call: ClientLegCall | undefined): LogicalCall | undefined {
    this.#open--;
    if (this.#last === token) this.#last = 0;
    if (call) {
      for (const id of call.ids) this.#byId.delete(id);
      if (call.logical.waitingSince !== undefined)
        for (const [state, c] of this.#waiting) if (c === call) this.#waiting.delete(state);
      return call.logical;
    }
    const rounds = this.#rounds;
    if (rounds?.token !== token) return undefined;
    this.#rounds = undefined;
    return rounds.logical;
  }

  /** Times the client's handlers of 2025-era input requests (once per client; `legacy` says the era now). */
  watchInputHandlers(client: object, legacy: () => boolean): void {
    for (const method of MCP_INPUT_METHODS)
      wrapRequestHandler(client, method, (original: RawHandler) => {
        const legs = this;
        return function inputHandler(request: unknown, extra: unknown): unknown {
          const token = legs.#open === 1 && legacy() ? legs.#last : 0;
          if (token === 0) return original(request, extra);
          const since = performance.now();
          const settle = () => {
            if (legs.#rounds?.token !== token) legs.#rounds = { token, logical: newLogicalCall() };
            inputRound(legs.#rounds.logical, performance.now() - since);
          };
          const out = original(request, extra);
          if (out instanceof Promise) out.then(settle, settle);
          else settle();
          return out;
        };
      });
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
    // The hash is the server side's linking key; the client keeps the raw state to match its next leg.
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
