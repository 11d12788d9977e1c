// The JSON API's error answers, one shape for every route: { error: { code, message } }, the status from the
// collector's error table (errors.ts).
import type { FastifyReply } from 'fastify';
import { COLLECTOR_ERRORS, type CollectorErrorCode } from '../errors.js';

/**
 * Answers `code` with its status from the table, and its message unless one is given. `status` only for the
 * router's own refusals, whose status fastify decides (414 for a URL over the length limit).
 */
export function sendError(
  reply: FastifyReply,
  code: CollectorErrorCode,
  message?: string,
  status: number = COLLECTOR_ERRORS[code].status,
) {
  return reply
    .code(status)
    .type('application/json')
    .send({ error: { code, message: message ?? COLLECTOR_ERRORS[code].message } });
}

export function badRequest(reply: FastifyReply, message: string) {
  return sendError(reply, 'INVALID_PARAMETER', message);
}

export function notFound(reply: FastifyReply, message: string) {
  return sendError(reply, 'NOT_FOUND', message);
}
