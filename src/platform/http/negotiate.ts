// Which of the media types a route offers the client's Accept prefers (RFC 9110 §12.5.1), with `negotiator`
// (jshttp's, the one Express and Koa use) rather than a hand-rolled parser of q-values and wildcards.
import Negotiator from 'negotiator';
import type { FastifyRequest } from 'fastify';
import { fail } from '../result.js';
import { unwrap } from './problems.js';

/**
 * The offered type the client prefers; the first offered when it sends no Accept (or `*` / `*\/*`). A client that
 * accepts none of them gets a 406 problem naming what is offered. Sets `Vary: Accept`, so caches keep them apart.
 */
export function negotiatedType<T extends string>(
  request: FastifyRequest,
  reply: { header: (name: string, value: string) => unknown },
  offered: readonly [T, ...T[]],
): T {
  reply.header('vary', 'Accept');
  const accept = request.headers.accept;
  if (accept === undefined || accept.trim() === '') return offered[0];
  const preferred = new Negotiator({ headers: { accept } }).mediaType([...offered]);
  const chosen = offered.find((type) => type === preferred);
  if (chosen !== undefined) return chosen;
  return unwrap(
    fail('not_acceptable', `Accept: ${accept} matches nothing this route answers with: ${offered.join(', ')}.`, [
      { pointer: '/accept', in: 'headers', code: 'not_acceptable', detail: `Offered: ${offered.join(', ')}.` },
    ]),
  );
}
