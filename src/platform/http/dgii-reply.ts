// Answers in DGII's own style, never our problem+json (research/dgii-protocol.md §2): `{mensaje}` with `error` for
// a request that cannot be taken, and JSON or XML by the client's Accept for a reply that has both forms (DT,
// "Formatos salida"). Used by the sandbox's DGII services and by the service's receiver routes (the receiver
// standard is DGII's, and so are its callers).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeText, xmlDeclaration } from '../../fiscal/xml/xml-writer.js';

/** `{mensaje}` with `error`, as DGII's reception services answer a request they cannot take. */
export function messageError(reply: FastifyReply, status: number, mensaje: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ error: mensaje, mensaje });
}

export function wantsXml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\b(application|text)\/xml\b/.test(accept) && !/json/.test(accept);
}

type ReplyFields = Readonly<Record<string, string | readonly string[]>>;

function xmlOf(root: string, fields: ReplyFields): string {
  const elements = Object.entries(fields).flatMap(([name, value]) =>
    (typeof value === 'string' ? [value] : value).map((text) => `<${name}>${escapeText(text)}</${name}>`),
  );
  return `${xmlDeclaration}<${root}>${elements.join('')}</${root}>`;
}

/** The same fields as JSON, or as XML under `root` (a list repeating its element) when the client asks for XML. */
export function sendDgiiReply(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  root: string,
  fields: ReplyFields,
): FastifyReply {
  reply.code(status);
  if (wantsXml(request)) return reply.type('application/xml; charset=utf-8').send(xmlOf(root, fields));
  return reply.send(fields);
}
