// Everything a request can throw, mapped to one problem (RFC 9457) in one place; only a true bug is a 500.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Failure, FieldError } from '../result.js';
import { isDatabaseFull, isDatabaseUnavailable } from '../db/unavailable.js';
import { StorageFullError, StorageUnavailableError } from '../storage/index.js';
import { problemBody, ProblemError } from './problems.js';

export const maxBodyBytes = 5 * 1024 * 1024;

export function sendProblem(request: FastifyRequest, reply: FastifyReply, failure: Failure, status: number) {
  for (const [name, value] of Object.entries(failure.headers ?? {})) void reply.header(name, value);
  // Set on every request by the onRequest hook; an answer from before routing (frameworkErrors) comes here first.
  void reply.header('x-correlation-id', request.id);
  // `instance` names the resource, not the query string (which may carry cursors or other caller data).
  const path = request.url.split('?')[0] ?? '/';
  return reply
    .code(status)
    .type('application/problem+json')
    .send(problemBody(failure, path, request.id));
}

const validationLocation = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' } as const;

function fieldErrors(error: FastifyError): FieldError[] {
  const where = validationLocation[error.validationContext ?? 'body'];
  return (error.validation ?? []).map((issue) => {
    const params = issue.params;
    // A discriminator error sits on the object; the field at fault is its tag (e.g. an unknown event `type`).
    const child =
      params.missingProperty ??
      params.additionalProperty ??
      (issue.keyword === 'discriminator' ? params.tag : undefined);
    const pointer = typeof child === 'string' ? `${issue.instancePath}/${child}` : issue.instancePath;
    const detail =
      issue.keyword === 'additionalProperties'
        ? `unknown property "${String(child)}"`
        : issue.keyword === 'required'
          ? `"${String(child)}" is required`
          : issue.keyword === 'discriminator' && typeof params.tagValue === 'string'
            ? `unknown value "${params.tagValue}"`
            : (issue.message ?? 'is not valid');
    return { pointer: pointer === '' ? '/' : pointer, in: where, code: issue.keyword, detail };
  });
}

/** How long a client is told to wait before it asks again while the database is away. */
const databaseRetryAfterSeconds = 5;
/** The same for the archive's storage (S3 out of reach or failing). */
const storageRetryAfterSeconds = 5;

/** Maps anything thrown in a request to a problem; only a true bug becomes a 500. */
export function toFailure(error: FastifyError | ProblemError): { failure: Failure; status: number } {
  if (error instanceof ProblemError) return { failure: error.failure, status: problemStatus(error.failure) };
  // The storage's errors first: theirs carry causes (ECONNREFUSED) the database's test would take for its own.
  if (error instanceof StorageUnavailableError)
    return {
      failure: {
        code: 'storage_unavailable',
        detail: `The archive storage cannot be reached just now. Try again in ${String(storageRetryAfterSeconds)} s; a creation that got this answer created no document.`,
        headers: { 'retry-after': String(storageRetryAfterSeconds) },
      },
      status: 503,
    };
  // No Retry-After: room is made by an operator, not by waiting.
  if (error instanceof StorageFullError)
    return {
      failure: {
        code: 'storage_full',
        detail: 'The archive storage has no room left; a creation that got this answer created no document.',
      },
      status: 507,
    };
  // No Retry-After: room is made by an operator, not by waiting.
  if (isDatabaseFull(error))
    return {
      failure: {
        code: 'database_full',
        detail: 'The database has no room left on its disk; a creation that got this answer stored no document.',
      },
      status: 507,
    };
  if (isDatabaseUnavailable(error))
    return {
      failure: {
        code: 'database_unavailable',
        detail: `The database cannot be reached just now. Try again in ${String(databaseRetryAfterSeconds)} s; a creation sent again with the same Idempotency-Key is stored at most once.`,
        headers: { 'retry-after': String(databaseRetryAfterSeconds) },
      },
      status: 503,
    };
  if (error.validation !== undefined) {
    const errors = fieldErrors(error);
    const first = errors[0];
    const detail =
      first === undefined
        ? 'The request is not valid.'
        : `${first.in} ${first.pointer}: ${first.detail}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
    return { failure: { code: 'validation_failed', detail, errors }, status: 400 };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        failure: {
          code: 'payload_too_large',
          detail: `The body exceeds ${maxBodyBytes} bytes.`,
          errors: [{ pointer: '/', in: 'body', code: 'too_large', detail: `At most ${maxBodyBytes} bytes.` }],
        },
        status: 413,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        failure: {
          code: 'unsupported_media_type',
          detail: 'Send application/json.',
          errors: [
            {
              pointer: '/content-type',
              in: 'headers',
              code: 'unsupported',
              detail: 'This route takes application/json.',
            },
          ],
        },
        status: 415,
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        failure: {
          code: 'malformed_body',
          detail: 'The body is empty but Content-Type says JSON.',
          errors: [{ pointer: '/', in: 'body', code: 'empty', detail: 'Send a JSON body.' }],
        },
        status: 400,
      };
    default:
      break;
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    // The whole body is at fault (it is not JSON at all): the pointer names the body, not a field.
    return {
      failure: {
        code: 'malformed_body',
        detail: error.message,
        errors: [{ pointer: '/', in: 'body', code: 'syntax', detail: 'The body is not valid JSON.' }],
      },
      status: 400,
    };
  }
  return {
    failure: {
      code: 'internal_error',
      detail: 'An unexpected error occurred. Quote the correlation id when reporting it.',
    },
    status: 500,
  };
}

function problemStatus(failure: Failure): number {
  return problemBody(failure, '', '').status;
}

/** What the router refuses before routing: a path that is not percent-encoded UTF-8, or a segment too long. */
export function frameworkFailure(error: FastifyError): { failure: Failure; status: number } {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return {
      failure: {
        code: 'uri_too_long',
        detail: 'A path segment is longer than any identifier this service uses.',
        errors: [{ pointer: '/', in: 'params', code: 'too_long', detail: error.message }],
      },
      status: 414,
    };
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return {
      failure: {
        code: 'malformed_request',
        detail: 'The path is not valid percent-encoded UTF-8.',
        errors: [{ pointer: '/', in: 'params', code: 'bad_encoding', detail: error.message }],
      },
      status: 400,
    };
  }
  return toFailure(error);
}

const clientErrors: Readonly<Record<string, { failure: Failure; status: number }>> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    failure: { code: 'request_timeout', detail: 'The request was not received in full in time.' },
    status: 408,
  },
  HPE_HEADER_OVERFLOW: {
    failure: { code: 'headers_too_large', detail: 'The request line and headers exceed the 16 KB Node accepts.' },
    status: 431,
  },
  HPE_INVALID_METHOD: {
    failure: { code: 'malformed_request', detail: 'The request method is not an HTTP method.' },
    status: 400,
  },
  HPE_INVALID_HEADER_TOKEN: {
    failure: {
      code: 'malformed_request',
      detail: 'A header holds a character HTTP does not allow (a NUL or another control character).',
    },
    status: 400,
  },
};

/** What Node's HTTP parser refuses, by its error code (`HPE_*`), before any request object exists. */
export function clientErrorFailure(code: string | undefined): { failure: Failure; status: number } {
  return (
    (code === undefined ? undefined : clientErrors[code]) ?? {
      failure: { code: 'malformed_request', detail: `The request is not valid HTTP/1.1 (${code ?? 'unknown error'}).` },
      status: 400,
    }
  );
}

/** A whole HTTP/1.1 problem answer, for the raw socket of a request Node could not parse; the socket closes after. */
export function rawProblemResponse(failure: Failure, status: number, correlationId: string): string {
  const body = JSON.stringify(problemBody(failure, '/', correlationId));
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'content-type: application/problem+json',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-correlation-id: ${correlationId}`,
    'connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** The 417 for an `Expect` other than 100-continue, which Node leaves to a `checkExpectation` listener. */
export function sendExpectationFailed(
  request: { url?: string },
  response: { writeHead(status: number, headers: Record<string, string>): unknown; end(body: string): unknown },
  correlationId: string,
): void {
  const body = JSON.stringify(
    problemBody(
      {
        code: 'expectation_failed',
        detail: 'Send the body without an Expect header, or with Expect: 100-continue.',
        errors: [{ pointer: '/expect', in: 'headers', code: 'unsupported', detail: 'Only 100-continue is supported.' }],
      },
      (request.url ?? '/').split('?')[0] ?? '/',
      correlationId,
    ),
  );
  response.writeHead(417, {
    'content-type': 'application/problem+json',
    'content-length': String(Buffer.byteLength(body)),
    'x-correlation-id': correlationId,
    connection: 'close',
  });
  response.end(body);
}
