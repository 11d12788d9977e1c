// JSON-RPC 2.0 messages as the proxy reads them from either side: requests, notifications and responses,
// parsed with Zod from a copy of the line; anything else is "unreadable" and is forwarded all the same.
import { z } from 'zod';

const idSchema = z.union([z.string(), z.number()]);
const paramsSchema = z.record(z.string(), z.unknown());

const requestSchema = z.object({
  id: idSchema,
  method: z.string(),
  params: paramsSchema.optional(),
});
const notificationSchema = z.object({ method: z.string(), params: paramsSchema.optional() });
const errorSchema = z.object({ code: z.number(), message: z.string().optional() });
const responseSchema = z.object({
  id: idSchema.nullable(),
  result: z.unknown().optional(),
  error: errorSchema.optional(),
});

export type RpcId = z.infer<typeof idSchema>;
export type RpcMessage =
  | { kind: 'request'; id: RpcId; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'notification'; method: string; params: Record<string, unknown> | undefined }
  | { kind: 'result'; id: RpcId; result: unknown }
  | { kind: 'error'; id: RpcId | null; code: number; message: string };

/** A map key for a request id: 1 and "1" are different ids. */
export const idKey = (id: RpcId): string => (typeof id === 'number' ? `n${id}` : `s${id}`);

function one(value: unknown): RpcMessage | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if ('method' in value) {
    const request = requestSchema.safeParse(value);
    if (request.success) return { kind: 'request', ...request.data, params: request.data.params };
    const note = notificationSchema.safeParse(value);
    return note.success
      ? { kind: 'notification', method: note.data.method, params: note.data.params }
      : undefined;
  }
  const response = responseSchema.safeParse(value);
  if (!response.success) return undefined;
  const { id, result, error } = response.data;
  if (error) return { kind: 'error', id, code: error.code, message: error.message ?? '' };
  return id === null ? undefined : { kind: 'result', id, result };
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
