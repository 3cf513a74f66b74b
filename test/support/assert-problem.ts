// Assertions on problem+json answers (SPEC §7), shared by the integration suites.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { ProblemBody } from '../../src/platform/http/problems.js';
import type { FieldError, ProblemCode } from '../../src/platform/result.js';

/** Asserts the status, the media type, the problem `code` and the correlation id; returns the body. */
export function assertProblem(response: LightMyRequestResponse, status: number, code: ProblemCode): ProblemBody {
  const where = `${response.raw.req.method ?? ''} ${response.raw.req.url ?? ''}`;
  assert.equal(
    response.statusCode,
    status,
    `${where}: expected ${status} ${code}, got ${response.statusCode} ${response.body}`,
  );
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, `${where}: content-type`);
  const body = response.json<ProblemBody>();
  assert.equal(body.code, code, `${where}: problem code`);
  assert.equal(body.status, status, `${where}: problem status`);
  const correlationId = response.headers['x-correlation-id'];
  assert.equal(typeof correlationId, 'string', `${where}: x-correlation-id header`);
  assert.equal(body.correlationId, correlationId, `${where}: correlationId equals the x-correlation-id header`);
  return body;
}

/** Asserts a 400 validation_failed (or another code) whose errors include one at `pointer`. */
export function assertFieldError(
  response: LightMyRequestResponse,
  status: number,
  code: ProblemCode,
  pointer: string,
): FieldError {
  const body = assertProblem(response, status, code);
  const error = body.errors?.find((candidate) => candidate.pointer === pointer);
  assert.ok(error !== undefined, `expected a field error at ${pointer}, got ${JSON.stringify(body.errors)}`);
  return error;
}
