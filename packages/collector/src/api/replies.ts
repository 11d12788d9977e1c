// The JSON API's error answers, one shape for every route: { error: { code, message } }.
import type { FastifyReply } from 'fastify';

export function badRequest(reply: FastifyReply, message: string) {
  return reply.code(400).send({ error: { code: 'INVALID_PARAMETER', message } });
}

export function notFound(reply: FastifyReply, message: string) {
  return reply.code(404).send({ error: { code: 'NOT_FOUND', message } });
}
