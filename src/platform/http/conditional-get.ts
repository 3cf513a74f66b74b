// Conditional GET (RFC 9110 §13): a strong ETag of what is answered and a 304 when the client already has it. For
// content that changes only with a release (catalogues, schemas) the ETag is of the data (the envelope's meta
// differs on every answer, so it is not part of it); for a rendered file, of its bytes.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Catalogues and schemas change only with a release: an hour in the client's cache. */
export const releaseCacheControl = 'private, max-age=3600';

export function etagOf(data: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(data)).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.2: If-None-Match is a list of entity tags (weak comparison) or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** Sets the cache headers; true when the answer is a 304 already sent. */
export function notModified(request: FastifyRequest, reply: FastifyReply, etag: string, cacheControl: string): boolean {
  void reply.header('etag', etag).header('cache-control', cacheControl);
  if (!matches(request.headers['if-none-match'], etag)) return false;
  void reply.code(304).send();
  return true;
}
