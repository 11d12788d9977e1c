// JSON-RPC 2.0 messages as the proxy reads them from either side: requests, notifications and responses,
// read from a copy of the line; anything else is "unreadable" and is forwarded all the same. This runs twice per
// call, so Zod checks only what the proxy reads, once: the id's type is decided in code (a Zod union runs each
// branch on a payload of its own), and `params` is checked to be an object without being copied (the observer
// checks each member it reads). Values are taken from the parsed JSON itself, not from a copy Zod builds.
import { z } from 'zod';

const methodSchema = z.object({ method: z.string(), params: z.object({}).optional() });
const errorSchema = z.object({ code: z.number(), message: z.string().optional() });
const responseSchema = z.object({ error: errorSchema.optional() });

export type RpcId = string | number;
export type RpcMessage =
  | { kind: 'request'; id: RpcId; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'result'; id: RpcId; result: unknown }
  | { kind: 'error'; id: RpcId | null; code: number; message: string };

/** A map key for a request id: 1 and "1" are different ids. */
export const idKey = (id: RpcId): string => (typeof id === 'number' ? `n${id}` : `s${id}`);

// What `z.union([z.string(), z.number()])` accepts: a string of whatever content, or a finite number.
const isId = (v: unknown): v is RpcId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

type Fields = { id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown };

function one(value: unknown): RpcMessage | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Fields;
  if ('method' in value) {
    if (!methodSchema.safeParse(value).success) return undefined;
    const method = v.method as string;
    // A request's id is a string or a number; with any other id it reads as a notification.
    return isId(v.id)
      ? { kind: 'request', id: v.id, method, params: v.params }
      : { kind: 'notification', method, params: v.params };
  }
  const id = v.id;
  if (id !== null && !isId(id)) return undefined;
  const response = responseSchema.safeParse(value);
  if (!response.success) return undefined;
  const error = response.data.error;
  if (error) return { kind: 'error', id, code: error.code, message: error.message ?? '' };
  return id === null ? undefined : { kind: 'result', id, result: v.result };
}

/**
 * The messages of one line (a JSON-RPC batch gives several), or undefined when the line is not JSON or holds
 * nothing JSON-RPC; `text` is the line's UTF-8.
 */
export function parseLine(text: string): RpcMessage[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(value)) {
    const messages = value.map(one).filter((m): m is RpcMessage => m !== undefined);
    return messages.length > 0 ? messages : undefined;
  }
  const message = one(value);
  return message ? [message] : undefined;
}

/**
 * Whether a line is framed like a JSON object or array (first and last non-space characters): a line that is
 * not is counted as malformed without being parsed; one that is gets parsed only when it can matter.
 */
export function looksLikeJson(line: Buffer): boolean {
  let first = 0;
  while (first < line.length && isSpace(line[first])) first++;
  if (first === line.length) return true;
  let last = line.length - 1;
  while (last > first && isSpace(line[last])) last--;
  const open = line[first];
  const close = line[last];
  return (open === 0x7b && close === 0x7d) || (open === 0x5b && close === 0x5d);
}

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
