// Errors as the service states them: application/problem+json (RFC 9457) with a stable `code` from the contract.
import type { components } from './schema.js';

export type Problem = components['schemas']['Problem'];
/** Every code the contract lists; `code` is what to branch on, never `title` or `detail`. */
export type ProblemCode = Problem['code'];
export type FieldError = components['schemas']['FieldError'];

/** A non-2xx answer that was not problem+json (a proxy's error page, say): the client's own code for it. */
export const unexpectedResponse = 'unexpected_response';

function isProblem(body: unknown): body is Problem {
  if (typeof body !== 'object' || body === null) return false;
  const { code, status, title } = body as Record<string, unknown>;
  return typeof code === 'string' && typeof status === 'number' && typeof title === 'string';
}

/** A refusal or failure of the service, thrown by `ok()`: status, code, the fields at fault, and the correlation id. */
export class EcfProblem extends Error {
  readonly status: number;
  readonly code: ProblemCode | typeof unexpectedResponse;
  readonly title: string;
  readonly detail: string;
  /** Each field at fault: `pointer` into the part of the request named by `in` (body, query, params, headers). */
  readonly errors: readonly FieldError[];
  /** Quote it when asking about a failure: the service logs under it. */
  readonly correlationId: string;
  readonly problem: Problem | undefined;

  constructor(status: number, body: unknown, correlationId: string) {
    const problem = isProblem(body) ? body : undefined;
    const detail =
      problem?.detail ??
      (typeof body === 'string' ? body.slice(0, 500) : `HTTP ${String(status)} without problem details`);
    super(`${String(status)} ${problem?.code ?? unexpectedResponse}: ${detail}`);
    this.name = 'EcfProblem';
    this.status = status;
    this.code = problem?.code ?? unexpectedResponse;
    this.title = problem?.title ?? `HTTP ${String(status)}`;
    this.detail = detail;
    this.errors = problem?.errors ?? [];
    this.correlationId = problem?.correlationId ?? correlationId;
    this.problem = problem;
  }

  /** From what openapi-fetch gives for a non-2xx answer: its parsed `error` and the response. */
  static from(error: unknown, response: Response): EcfProblem {
    return new EcfProblem(response.status, error, response.headers.get('x-correlation-id') ?? '');
  }
}

/**
 * The `data` of a successful openapi-fetch call, or its problem thrown as an EcfProblem:
 * `const { data: document } = await ok(ecf.POST('/api/v1/documentos', { body }))`.
 */
export async function ok<Data>(call: Promise<{ data?: Data; error?: unknown; response: Response }>): Promise<Data> {
  const { data, error, response } = await call;
  if (!response.ok) throw EcfProblem.from(error, response);
  return data as Data;
}
