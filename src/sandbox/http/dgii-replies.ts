// DGII's error bodies, which differ by service (research/dgii-protocol.md §2): a bare string, `{mensaje}`,
// `{mensajes: [...]}`. The sandbox answers like DGII, never with our problem+json, so that clients learn to
// handle DGII as it is.
import type { FastifyReply } from 'fastify';
import type { SandboxMessage } from '../state/schema.js';

/** A bare JSON string, as validarsemilla answers a certificate that is not delegated. */
export function plainError(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(text));
}

export { messageError } from '../../platform/http/dgii-reply.js';

/** `{mensajes: [{valor, codigo}]}`. */
export function messagesError(reply: FastifyReply, status: number, mensajes: SandboxMessage[]): FastifyReply {
  return reply.code(status).send({ mensajes });
}

/** No session: what ASP.NET's bearer authentication answers (401, no body). */
export function unauthorized(reply: FastifyReply): FastifyReply {
  return reply.code(401).header('www-authenticate', 'Bearer').send();
}
