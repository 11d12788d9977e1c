// The JSON API's error answers, one shape for every route: { error: { code, message } }.
import type { FastifyReply } from 'fastify';

export function badRequest(reply: FastifyReply, message: string) {
  return refused(reply, 400, message);
}

/** A request the API refuses as malformed, with the status the refusal calls for (400, 414). */
export function refused(reply: FastifyReply, status: number, message: string) {
  return reply.code(status).send({ error: { code: 'INVALID_PARAMETER', message } });
}

export function notFound(reply: FastifyReply, message: string) {
  return reply.code(404).send({ error: { code: 'NOT_FOUND', message } });
}
