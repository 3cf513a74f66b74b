// DGII's services answer JSON, or XML when the client's Accept asks for it (DT, "Formatos salida"): the same fields
// under a root named for the reply (RespuestaAnulacionRango, RespuestaAprobacionComercial), a list repeating its
// element. Every service that answers both ways replies through here.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeText, xmlDeclaration } from '../../fiscal/xml/xml-writer.js';

export function wantsXml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\b(application|text)\/xml\b/.test(accept) && !/json/.test(accept);
}

type ReplyFields = Readonly<Record<string, string | readonly string[]>>;

function xmlOf(root: string, fields: ReplyFields): string {
  const elements = Object.entries(fields).flatMap(([name, value]) => (typeof value === 'string' ? [value] : value).map((text) => `<${name}>${escapeText(text)}</${name}>`));
  return `${xmlDeclaration}<${root}>${elements.join('')}</${root}>`;
}

export function sendDgiiReply(request: FastifyRequest, reply: FastifyReply, status: number, root: string, fields: ReplyFields): FastifyReply {
  reply.code(status);
  if (wantsXml(request)) return reply.type('application/xml; charset=utf-8').send(xmlOf(root, fields));
  return reply.send(fields);
}
