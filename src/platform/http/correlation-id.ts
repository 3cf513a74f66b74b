// X-Correlation-ID (SPEC §2.1, §9.5; DESIGN §4): the caller's id is the request's, echoed exactly as sent, logged and
// stored with the work the request queues. A value that cannot be carried that way is refused (400), never replaced
// by another behind the caller's back; without the header the request gets a new id.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ProblemError } from './problems.js';

export const maxCorrelationIdLength = 128;

/**
 * Printable ASCII without spaces (0x21 to 0x7E), 1 to 128 characters: UUIDs, ULIDs, W3C `traceparent` values and
 * AWS trace ids all fit. Nothing else comes back as sent: HTTP drops the spaces around a header value and joins
 * repeated headers with ", " (so a space means the value is not one id), control characters are not header text,
 * and bytes beyond ASCII are read as Latin-1 and would be echoed as other characters. The length bounds what every
 * log line and every queued row carries.
 */
const carriable = new RegExp(`^[\\x21-\\x7e]{1,${String(maxCorrelationIdLength)}}$`);

/** The caller's X-Correlation-ID when the service can carry it, else a new id (a refused one: correlationIdRefusal). */
export function correlationIdOf(request: { headers: IncomingHttpHeaders }): string {
  const given = request.headers['x-correlation-id'];
  return typeof given === 'string' && carriable.test(given) ? given : randomUUID();
}

/** The 400 for an X-Correlation-ID the service cannot carry; undefined when it can, or when none was sent. */
export function correlationIdRefusal(headers: IncomingHttpHeaders): ProblemError | undefined {
  const given = headers['x-correlation-id'];
  if (given === undefined || (typeof given === 'string' && carriable.test(given))) return undefined;
  const value = Array.isArray(given) ? given.join(', ') : given;
  const why =
    value.length > maxCorrelationIdLength
      ? { code: 'too_long', detail: `${String(value.length)} characters; at most ${String(maxCorrelationIdLength)}.` }
      : value === ''
        ? { code: 'empty', detail: 'Empty; send 1 to 128 characters, or leave the header out to get a new id.' }
        : {
            code: 'pattern',
            detail: 'Only printable ASCII without spaces (0x21 to 0x7E): no spaces, control characters or non-ASCII.',
          };
  return new ProblemError({
    code: 'validation_failed',
    detail: `X-Correlation-ID cannot be carried: ${why.detail}`,
    errors: [{ pointer: '/x-correlation-id', in: 'headers', ...why }],
  });
}
