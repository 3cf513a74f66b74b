// Every way a request can fail answers application/problem+json (RFC 9457) with the status and code of the one
// error catalogue; malformed input is a 4xx, and a bug is a 500 that reveals nothing of its cause.
import { systemClock } from '../src/platform/clock.js';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { parseConfig } from '../src/config.js';
import { problemCatalogue, type ProblemBody } from '../src/platform/http/problems.js';
import type { FieldError, ProblemCode } from '../src/platform/result.js';
import { defineRoute, registerRoutes, type App, type AppRoute } from '../src/platform/http/route.js';
import { createHttpServer, maxBodyBytes } from '../src/platform/http/server.js';
import { signMessage } from '../src/platform/http/signed-message.js';
import { createLogger } from '../src/platform/observability/logger.js';
import { createMetrics } from '../src/platform/observability/metrics.js';
import { LogCapture } from './support/logged-test-app.js';
import { cloudSecret, startTestApp, type TestApp } from './support/test-app.js';

/** Checks every RFC 9457 member and our extensions; returns the body for further checks. */
function assertProblem(
  response: LightMyRequestResponse,
  status: number,
  code: ProblemCode,
  instance: string,
): ProblemBody {
  assert.equal(response.statusCode, status, `expected ${status} ${code}, got ${response.statusCode} ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json(;|$)/);
  const body = response.json<ProblemBody>();
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.title, problemCatalogue[code].title);
  assert.equal(typeof body.detail, 'string');
  assert.notEqual(body.detail.trim(), '');
  assert.equal(body.instance, instance);
  // `type` is a URI (RFC 9457 §3.1.1) naming the code.
  assert.match(body.type, /^[a-z][a-z0-9+.-]*:\S+$/);
  assert.doesNotThrow(() => new URL(body.type));
  assert.ok(body.type.endsWith(code), `${body.type} should name ${code}`);
  assert.equal(typeof body.correlationId, 'string');
  assert.equal(body.correlationId, response.headers['x-correlation-id']);
  return body;
}

function fieldError(body: ProblemBody, pointer: string, code: string): FieldError {
  const found = body.errors?.find((error) => error.pointer === pointer && error.code === code);
  assert.ok(found !== undefined, `no ${code} error at ${pointer} in ${JSON.stringify(body.errors)}`);
  return found;
}

const eventsUrl = '/internal/cloud/v1/events';

describe('problem responses of the real app', () => {
  let testApp: TestApp;
  let companyId: string;
  before(async () => {
    testApp = await startTestApp();
    companyId = await testApp.provisionCompany();
  });
  after(async () => {
    await testApp.close();
  });

  /** A correctly signed control-plane POST of any raw text, so only the body itself can be at fault. */
  function signedPost(
    url: string,
    raw: string | Buffer,
    contentType: string | undefined,
  ): Promise<LightMyRequestResponse> {
    const id = `msg_${randomUUID()}`;
    const timestamp = Math.floor(Date.now() / 1_000);
    return testApp.app.inject({
      method: 'POST',
      url,
      headers: {
        ...(contentType === undefined ? {} : { 'content-type': contentType }),
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signMessage(cloudSecret, id, timestamp, raw.toString()),
      },
      payload: raw,
    });
  }

  describe('unknown routes', () => {
    for (const [method, url, path] of [
      ['GET', '/api/v1/no-such-thing', '/api/v1/no-such-thing'],
      ['GET', '/', '/'],
      ['POST', '/api/v1/nada', '/api/v1/nada'],
      ['GET', '/api/v1/no-such-thing?cursor=abc&limit=5', '/api/v1/no-such-thing'],
    ] as const) {
      it(`answers ${method} ${url} with 404 route_not_found and the path as instance`, async () => {
        const response = await testApp.app.inject({ method, url });
        const body = assertProblem(response, 404, 'route_not_found', path);
        assert.equal(body.errors, undefined);
        assert.equal(response.headers.allow, undefined);
      });
    }

    it('answers 404 to an unknown route whatever its body, even malformed JSON', async () => {
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/nada',
        headers: { 'content-type': 'application/json' },
        payload: '{"oops',
      });
      assertProblem(response, 404, 'route_not_found', '/api/v1/nada');
    });
  });

  describe('wrong methods on known paths', () => {
    for (const [method, url, allow] of [
      ['DELETE', '/health', 'GET, HEAD'],
      ['POST', '/ready', 'GET, HEAD'],
      ['PUT', '/api/v1/empresa', 'GET, HEAD'],
      ['PATCH', '/api/v1/company', 'GET, HEAD'],
      ['GET', eventsUrl, 'POST'],
      ['DELETE', '/internal/cloud/v1/companies/cmp_abc/api-keys', 'GET, POST, HEAD'],
      ['GET', '/internal/cloud/v1/companies/cmp_abc/api-keys/key_abc', 'DELETE'],
      ['DELETE', '/health/', 'GET, HEAD'],
    ] as const) {
      it(`answers ${method} ${url} with 405 method_not_allowed and Allow: ${allow}`, async () => {
        const response = await testApp.app.inject({ method, url });
        assertProblem(response, 405, 'method_not_allowed', url);
        assert.equal(response.headers.allow, allow);
      });
    }

    it('answers 405 before looking at the body or the key', async () => {
      const response = await testApp.app.inject({
        method: 'PUT',
        url: '/api/v1/empresa',
        headers: { 'content-type': 'application/json', 'x-api-key': 'not-a-key' },
        payload: '{broken',
      });
      assertProblem(response, 405, 'method_not_allowed', '/api/v1/empresa');
      assert.equal(response.headers.allow, 'GET, HEAD');
    });
  });

  describe('body validation of the control-plane event route', () => {
    const provision = { rnc: '131793916', legalName: 'Empresa SRL', plan: 'pro', capabilities: ['issuing'] };

    it('points at a missing property', async () => {
      const { rnc: _rnc, ...withoutRnc } = provision;
      const body = assertProblem(
        await testApp.sendEvent('company.provisioned', withoutRnc),
        400,
        'validation_failed',
        eventsUrl,
      );
      assert.deepEqual(body.errors, [
        { pointer: '/data/rnc', in: 'body', code: 'required', detail: '"rnc" is required' },
      ]);
      assert.match(body.detail, /\/data\/rnc/);
    });

    it('points at a missing top-level property', async () => {
      const body = assertProblem(
        await testApp.cloud('POST', eventsUrl, { type: 'company.provisioned' }),
        400,
        'validation_failed',
        eventsUrl,
      );
      fieldError(body, '/data', 'required');
    });

    it('points at a property of the wrong type', async () => {
      const body = assertProblem(
        await testApp.sendEvent('company.provisioned', { ...provision, legalName: { es: 'Empresa' } }),
        400,
        'validation_failed',
        eventsUrl,
      );
      assert.equal(body.errors?.length, 1);
      const error = fieldError(body, '/data/legalName', 'type');
      assert.equal(error.in, 'body');
      assert.match(error.detail, /string/);
    });

    it('points at an unknown property, nested or at the top', async () => {
      const nested = assertProblem(
        await testApp.sendEvent('company.provisioned', { ...provision, colour: 'blue' }),
        400,
        'validation_failed',
        eventsUrl,
      );
      assert.deepEqual(nested.errors, [
        { pointer: '/data/colour', in: 'body', code: 'additionalProperties', detail: 'unknown property "colour"' },
      ]);
      const top = assertProblem(
        await testApp.cloud('POST', eventsUrl, { type: 'company.provisioned', data: provision, extra: true }),
        400,
        'validation_failed',
        eventsUrl,
      );
      fieldError(top, '/extra', 'additionalProperties');
    });

    it('points at the event type when it names no known event', async () => {
      const body = assertProblem(
        await testApp.sendEvent('company.exploded', provision),
        400,
        'validation_failed',
        eventsUrl,
      );
      fieldError(body, '/type', 'discriminator');
    });

    it('reports several errors at once, together', async () => {
      const { rnc: _rnc, ...withoutRnc } = provision;
      const response = await testApp.sendEvent('company.provisioned', {
        ...withoutRnc,
        legalName: {},
        municipality: '12',
        spare: 1,
      });
      const body = assertProblem(response, 400, 'validation_failed', eventsUrl);
      fieldError(body, '/data/rnc', 'required');
      fieldError(body, '/data/legalName', 'type');
      fieldError(body, '/data/municipality', 'pattern');
      fieldError(body, '/data/spare', 'additionalProperties');
      assert.equal(body.errors?.length, 4);
      assert.match(body.detail, /and 3 more/);
      for (const error of body.errors ?? []) assert.match(error.pointer, /^\/(?:[^/~]|~[01])*(?:\/(?:[^/~]|~[01])*)*$/);
    });

    it('reads a JSON array body as one wrong-type error at the root', async () => {
      const response = await signedPost(eventsUrl, '[1,2]', 'application/json');
      const body = assertProblem(response, 400, 'validation_failed', eventsUrl);
      assert.deepEqual(body.errors, [{ pointer: '/', in: 'body', code: 'type', detail: 'must be object' }]);
    });
  });

  describe('body and params validation of the issue-key route', () => {
    const url = () => `/internal/cloud/v1/companies/${companyId}/api-keys`;

    it('points at a missing name', async () => {
      const body = assertProblem(
        await testApp.cloud('POST', url(), { scopes: ['documents:read'] }),
        400,
        'validation_failed',
        url(),
      );
      assert.deepEqual(body.errors, [{ pointer: '/name', in: 'body', code: 'required', detail: '"name" is required' }]);
    });

    it('points at a name of the wrong type', async () => {
      const body = assertProblem(
        await testApp.cloud('POST', url(), { name: { text: 'ERP' }, scopes: ['documents:read'] }),
        400,
        'validation_failed',
        url(),
      );
      assert.equal(body.errors?.length, 1);
      fieldError(body, '/name', 'type');
    });

    it('points at an unknown property', async () => {
      const body = assertProblem(
        await testApp.cloud('POST', url(), { name: 'ERP', scopes: ['documents:read'], admin: true }),
        400,
        'validation_failed',
        url(),
      );
      assert.deepEqual(body.errors, [
        { pointer: '/admin', in: 'body', code: 'additionalProperties', detail: 'unknown property "admin"' },
      ]);
    });

    it('reports several errors at once, with array indexes in the pointers', async () => {
      const response = await testApp.cloud('POST', url(), {
        scopes: ['documents:read', 'root:everything'],
        expiresAt: 'soon',
        admin: true,
      });
      const body = assertProblem(response, 400, 'validation_failed', url());
      fieldError(body, '/name', 'required');
      fieldError(body, '/scopes/1', 'enum');
      fieldError(body, '/expiresAt', 'format');
      fieldError(body, '/admin', 'additionalProperties');
      assert.equal(body.errors?.length, 4);
    });

    it('reports a service-level rule in the same shape (expiresAt in the past)', async () => {
      const response = await testApp.cloud('POST', url(), {
        name: 'ERP',
        scopes: ['documents:read'],
        expiresAt: '2001-01-01T00:00:00Z',
      });
      const body = assertProblem(response, 400, 'validation_failed', url());
      assert.deepEqual(body.errors, [
        { pointer: '/expiresAt', in: 'body', code: 'in_past', detail: 'must be in the future' },
      ]);
    });

    it('validates path parameters and says so', async () => {
      const longId = `cmp_${'x'.repeat(70)}`;
      const path = `/internal/cloud/v1/companies/${longId}/api-keys`;
      const body = assertProblem(
        await testApp.cloud('POST', path, { name: 'ERP', scopes: ['documents:read'] }),
        400,
        'validation_failed',
        path,
      );
      assert.deepEqual(
        body.errors?.map((error) => [error.pointer, error.in, error.code]),
        [['/companyId', 'params', 'maxLength']],
      );
    });
  });

  describe('unreadable bodies', () => {
    for (const [label, raw] of [
      ['truncated JSON', '{"type": "company.provisioned", "data": {'],
      ['not JSON at all', 'type=company.provisioned'],
      ['JSON with a __proto__ key', '{"type":"company.suspended","data":{},"__proto__":{"admin":true}}'],
      ['an empty body', ''],
    ] as const) {
      it(`answers a correctly signed request with ${label} as 400 malformed_body`, async () => {
        const body = assertProblem(
          await signedPost(eventsUrl, raw, 'application/json'),
          400,
          'malformed_body',
          eventsUrl,
        );
        // The whole body is at fault: the one pointer names the body.
        assert.deepEqual(
          body.errors?.map((error) => [error.pointer, error.in]),
          [['/', 'body']],
        );
        if (raw.length > 0) assert.ok(!body.detail.includes(raw), 'the detail should not echo the body');
      });
    }

    for (const contentType of [
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'application/vnd.api+json',
    ]) {
      it(`answers a correctly signed ${contentType} body as 415 unsupported_media_type`, async () => {
        const raw = contentType === 'application/xml' ? '<event/>' : 'type=company.provisioned';
        assertProblem(await signedPost(eventsUrl, raw, contentType), 415, 'unsupported_media_type', eventsUrl);
      });
    }

    it('answers a body without a content type as 415', async () => {
      assertProblem(
        await signedPost(eventsUrl, Buffer.from('{"type":"company.provisioned"}'), undefined),
        415,
        'unsupported_media_type',
        eventsUrl,
      );
    });

    it('accepts JSON with a charset parameter (the control is not a 415)', async () => {
      const response = await signedPost(
        eventsUrl,
        JSON.stringify({ type: 'company.provisioned' }),
        'application/json; charset=utf-8',
      );
      assertProblem(response, 400, 'validation_failed', eventsUrl);
    });

    it('answers a body over 5 MiB as 413 payload_too_large', async () => {
      const raw = JSON.stringify({ type: 'company.provisioned', data: { legalName: 'x'.repeat(maxBodyBytes) } });
      assert.ok(Buffer.byteLength(raw) > 5 * 1024 * 1024);
      const body = assertProblem(
        await signedPost(eventsUrl, raw, 'application/json'),
        413,
        'payload_too_large',
        eventsUrl,
      );
      assert.match(body.detail, /5242880/);
    });

    it('reads a body of exactly 5 MiB (and finds it invalid, not too large)', async () => {
      const shell = JSON.stringify({ type: 'company.provisioned', data: { pad: '' } });
      const raw = shell.replace('"pad":""', `"pad":"${'x'.repeat(maxBodyBytes - Buffer.byteLength(shell))}"`);
      assert.equal(Buffer.byteLength(raw), maxBodyBytes);
      const body = assertProblem(
        await signedPost(eventsUrl, raw, 'application/json'),
        400,
        'validation_failed',
        eventsUrl,
      );
      fieldError(body, '/data/pad', 'additionalProperties');
    });
  });
});

describe('a bug in a route handler', () => {
  const logs = new LogCapture();
  let app: App;
  before(async () => {
    const config = parseConfig({ NODE_ENV: 'test', OPENAPI_ENABLED: 'false' });
    const server = await createHttpServer({
      config,
      log: createLogger('info', logs),
      metrics: createMetrics(),
      authenticator: { authenticate: () => Promise.reject(new Error('no keys in this test')) },
      clock: systemClock,
      version: '0.0.0-test',
    });
    const docs = { summary: 'Fails on purpose', tags: ['Test'] };
    const routes = [
      defineRoute({
        method: 'GET',
        url: '/boom',
        auth: { kind: 'public' },
        docs: { operationId: 'boom', ...docs },
        handler: () => {
          throw new Error('secret internals');
        },
      }),
      defineRoute({
        method: 'GET',
        url: '/boom-async/:id',
        auth: { kind: 'public' },
        docs: { operationId: 'boomAsync', ...docs },
        handler: async () => {
          await Promise.resolve();
          throw new TypeError('secret internals from a promise');
        },
      }),
    ] as AppRoute[];
    registerRoutes(server.app, routes, server.catalogue);
    await server.app.ready();
    app = server.app;
  });
  after(async () => {
    await app.close();
  });

  for (const [url, path, message] of [
    ['/boom', '/boom', 'secret internals'],
    ['/boom-async/7?debug=1', '/boom-async/7', 'secret internals from a promise'],
  ] as const) {
    it(`answers GET ${url} with 500 internal_error that does not leak the cause, and logs it`, async () => {
      const response = await app.inject({ url, headers: { 'x-correlation-id': `bug-${path.length}` } });
      const body = assertProblem(response, 500, 'internal_error', path);
      assert.equal(body.correlationId, `bug-${path.length}`);
      assert.doesNotMatch(response.body, /secret internals/);
      assert.doesNotMatch(response.body, /Error| {4}at /);
      assert.match(body.detail, /correlation id/);

      const logged = logs
        .entries()
        .filter((entry) => entry.correlationId === body.correlationId && entry.msg === 'request failed');
      assert.equal(logged.length, 1, `expected one "request failed" log line, got ${JSON.stringify(logs.lines)}`);
      const entry = logged[0]!;
      assert.equal(entry.level, 50);
      assert.equal(typeof entry.err, 'object', 'the error is logged under err');
      const err = entry.err as { message?: unknown; stack?: unknown };
      assert.equal(err.message, message);
      assert.match(String(err.stack), /secret internals/);
    });
  }

  it('does not log expected failures as errors', async () => {
    const errorsBefore = logs.entries().filter((entry) => entry.level === 50).length;
    assert.equal((await app.inject({ url: '/nowhere' })).statusCode, 404);
    assert.equal((await app.inject({ method: 'DELETE', url: '/boom' })).statusCode, 405);
    assert.equal(logs.entries().filter((entry) => entry.level === 50).length, errorsBefore);
  });
});
