// Rounds of input inside one request (a 2025-era connection): the SDK's shim for a tool that answers
// `input_required`, or a handler's own `elicitInput`, `createMessage` or `listRoots`, sends a request to the client
// related to the `tools/call` being served and waits for its answer. Those requests are followed here, so the
// call's span counts them as legs and their time as input wait, as a 2026-07-28 call's separate legs are.
import { inputRound, type LogicalCall, newLogicalCall } from '../logical-call.js';
import { MCP_INPUT_METHODS } from '../semconv.js';

const INPUT_METHODS: ReadonlySet<string> = new Set(MCP_INPUT_METHODS);

/** The input requests of one `tools/call` in flight: concurrent ones (one round) count once. */
type Rounds = { logical: LogicalCall; open: number; since: number };

const MAX_REQUESTS = 1024;
const watched = new WeakSet<object>();
const roundsOf = new WeakMap<object, Map<string, Rounds>>();

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function relatedIdOf(args: unknown[]): string | undefined {
  // SDK 1.x calls request(request, resultSchema, options), SDK v2 request(request, options): the options last.
  const options = args[args.length - 1];
  const id = isRecord(options) ? options.relatedRequestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** Follows the input requests a low-level `Server` sends while serving a request (its `request` method). */
export function watchInputRequests(low: object): void {
  if (watched.has(low)) return;
  watched.add(low);
  const original: unknown = Reflect.get(low, 'request');
  if (typeof original !== 'function') return;
  const byRequest = new Map<string, Rounds>();
  roundsOf.set(low, byRequest);
  Object.defineProperty(low, 'request', {
    configurable: true,
    writable: true,
    value: function request(this: unknown, ...args: unknown[]): unknown {
      const message = args[0];
      const method = isRecord(message) ? message.method : undefined;
      const related = typeof method === 'string' && INPUT_METHODS.has(method) && relatedIdOf(args);
      if (!related) return Reflect.apply(original, this, args);
      let rounds = byRequest.get(related);
      if (!rounds) {
        // Rounds of a request whose end never took them (a defineTool tool asking for input): let go, not kept.
        if (byRequest.size >= MAX_REQUESTS) byRequest.clear();
        rounds = { logical: newLogicalCall(), open: 0, since: 0 };
        byRequest.set(related, rounds);
      }
      const r = rounds;
      if (r.open++ === 0) r.since = performance.now();
      const settle = () => {
        if (--r.open === 0) inputRound(r.logical, performance.now() - r.since);
      };
      const out: unknown = Reflect.apply(original, this, args);
      if (out instanceof Promise) out.then(settle, settle);
      else settle();
      return out;
    },
  });
}

/** The rounds of input of the request `requestId` on `low`, taken (the request has been answered). */
export function takeInputRounds(
  low: object,
  requestId: string | undefined,
): LogicalCall | undefined {
  if (requestId === undefined) return undefined;
  const byRequest = roundsOf.get(low);
  if (!byRequest || byRequest.size === 0) return undefined;
  const rounds = byRequest.get(requestId);
  if (!rounds) return undefined;
  byRequest.delete(requestId);
  return rounds.logical;
}
