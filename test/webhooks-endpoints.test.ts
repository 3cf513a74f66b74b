// The webhook endpoint API (SPEC §4.7): the closed list of event types; create, list, get, PATCH, rotate and test
// under webhooks:manage; secrets shown only on create and rotation, sealed at rest, never in a GET or a log line;
// SSRF refusals at creation (literal addresses, a name resolving to loopback, http in PRODUCTION); company isolation
// on every webhook route.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { startLoggedTestApp, type LoggedTestApp } from './support/logged-test-app.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface Endpoint {
  id: string;
  url: string;
  events: string[] | null;
  description: string | null;
  state: string;
  secret?: string;
  previousSecretValidUntil: string | null;
}

type Method = 'GET' | 'POST' | 'PATCH';

describe('webhook endpoints', { timeout: 120_000 }, () => {
  let testApp: LoggedTestApp;
  let key: string;
  let otherKey: string;
  let readOnlyKey: string;
  const call = (method: Method, url: string, payload?: unknown, apiKey = key): Promise<LightMyRequestResponse> =>
    testApp.app.inject({
      method,
      url,
      headers: { 'x-api-key': apiKey },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  before(async () => {
    testApp = await startLoggedTestApp({ env: { OUTBOUND_ALLOW_PRIVATE: 'false' } });
    const companyId = await testApp.provisionCompany();
    key = (await testApp.issueKey(companyId, ['webhooks:manage'])).apiKey;
    readOnlyKey = (await testApp.issueKey(companyId, ['documents:read'])).apiKey;
    otherKey = (await testApp.issueKey(await testApp.provisionCompany(), ['webhooks:manage'])).apiKey;
  });
  after(() => testApp.close());

  it('lists the closed catalogue of event types, each with a description and the JSON schema of its data', async () => {
    const response = await call('GET', '/api/v1/notificaciones/tipos-evento');
    assert.equal(response.statusCode, 200, response.body);
    const types = response.json<{
      data: { type: string; description: string; dataSchema: { type: string; properties: Record<string, unknown> } }[];
    }>().data;
    const names = types.map((entry) => entry.type);
    for (const expected of [
      'document.signed',
      'document.queued',
      'document.accepted',
      'document.accepted_conditional',
      'document.rejected',
      'document.send_failed',
      'received_document.received',
      'received_document.not_received',
      'document.commercial_approval_received',
      'received_document.commercial_response_delivered',
      'received_document.commercial_response_failed',
      'annulment.accepted',
      'annulment.rejected',
      'sequence.low_stock',
      'sequence.expiring',
      'sequence.exhausted',
      'allocation.expired',
      'certificate.expiring',
      'certification.process_updated',
      'certification.case_updated',
      'webhook.test',
    ])
      assert.ok(names.includes(expected), `${expected} missing from ${names.join(', ')}`);
    for (const entry of types) {
      assert.match(entry.type, /^[a-z_]+\.[a-z_]+$/);
      assert.ok(entry.description.length > 10);
      assert.equal(entry.dataSchema.type, 'object', entry.type);
    }
    const accepted = types.find((entry) => entry.type === 'document.accepted');
    assert.deepEqual(Object.keys(accepted?.dataSchema.properties ?? {}).sort(), [
      'documentId',
      'eNCF',
      'ecfType',
      'estado',
      'mensajes',
      'status',
    ]);
    // The English alias answers the same.
    assert.deepEqual((await call('GET', '/api/v1/webhooks/event-types')).json<{ data: unknown }>().data, types);
  });

  let endpoint: Endpoint;

  it('creates an endpoint with a whsec_ secret of 32 random bytes, shown in the answer only', async () => {
    const response = await call('POST', '/api/v1/notificaciones', {
      url: 'https://93.184.215.14/hooks',
      events: ['document.accepted', 'document.rejected'],
      description: 'ERP',
    });
    assert.equal(response.statusCode, 201, response.body);
    endpoint = response.json<{ data: Endpoint }>().data;
    assert.match(endpoint.id, /^whk_/);
    assert.equal(endpoint.state, 'enabled');
    assert.deepEqual(endpoint.events, ['document.accepted', 'document.rejected']);
    assert.match(endpoint.secret ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from((endpoint.secret ?? '').slice(6), 'base64').length, 32);

    const got = (await call('GET', `/api/v1/notificaciones/${endpoint.id}`)).json<{ data: Endpoint }>().data;
    assert.equal(got.secret, undefined);
    assert.equal(got.url, 'https://93.184.215.14/hooks');
    const listed = await call('GET', '/api/v1/notificaciones');
    assert.equal(listed.statusCode, 200);
    assert.deepEqual(
      listed.json<{ data: Endpoint[] }>().data.map((entry) => entry.id),
      [endpoint.id],
    );
    const secretPart = (endpoint.secret ?? '').slice(6);
    for (const body of [(await call('GET', `/api/v1/notificaciones/${endpoint.id}`)).body, listed.body])
      assert.ok(!body.includes(secretPart));
    // Sealed at rest: the stored column is not the secret.
    const stored = await testApp.application.database.db
      .selectFrom('webhook_endpoints')
      .select('secret_sealed')
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    assert.match(stored.secret_sealed, /^v1\./);
    assert.ok(!stored.secret_sealed.includes(secretPart));
  });

  it('changes URL, events, description and state with PATCH', async () => {
    const response = await call('PATCH', `/api/v1/notificaciones/${endpoint.id}`, {
      url: 'https://93.184.215.14/other',
      events: null,
      description: null,
      state: 'disabled',
    });
    assert.equal(response.statusCode, 200, response.body);
    const changed = response.json<{ data: Endpoint }>().data;
    assert.deepEqual(
      [changed.url, changed.events, changed.description, changed.state],
      ['https://93.184.215.14/other', null, null, 'disabled'],
    );
    const enabled = (
      await call('PATCH', `/api/v1/notificaciones/${endpoint.id}`, { state: 'enabled', events: ['webhook.test'] })
    ).json<{ data: Endpoint }>().data;
    assert.deepEqual([enabled.state, enabled.events], ['enabled', ['webhook.test']]);
    assertFieldError(
      await call('PATCH', `/api/v1/notificaciones/${endpoint.id}`, {
        events: ['document.accepted', 'document.teleported'],
      }),
      400,
      'validation_failed',
      '/events/1',
    );
    assertFieldError(
      await call('PATCH', `/api/v1/notificaciones/${endpoint.id}`, { state: 'paused' }),
      400,
      'validation_failed',
      '/state',
    );
    assertProblem(await call('PATCH', `/api/v1/notificaciones/${endpoint.id}`, {}), 400, 'validation_failed');
  });

  it('rotates the secret: a new one, shown once, with the old one valid for 24 hours', async () => {
    const response = await call('POST', `/api/v1/notificaciones/${endpoint.id}/rotar-secreto`);
    assert.equal(response.statusCode, 200, response.body);
    const rotated = response.json<{ data: Endpoint }>().data;
    assert.match(rotated.secret ?? '', /^whsec_/);
    assert.notEqual(rotated.secret, endpoint.secret);
    const validFor = Date.parse(rotated.previousSecretValidUntil ?? '') - Date.now();
    assert.ok(validFor > 23.9 * 3_600_000 && validFor <= 24 * 3_600_000, String(validFor));
    const got = await call('GET', `/api/v1/notificaciones/${endpoint.id}`);
    assert.ok(!got.body.includes((rotated.secret ?? '').slice(6)));
  });

  it('refuses bad input with 400 naming the field', async () => {
    assertFieldError(
      await call('POST', '/api/v1/notificaciones', { url: 'not a url' }),
      400,
      'validation_failed',
      '/url',
    );
    assertFieldError(
      await call('POST', '/api/v1/notificaciones', { url: 'ftp://93.184.215.14/' }),
      400,
      'validation_failed',
      '/url',
    );
    assertFieldError(
      await call('POST', '/api/v1/notificaciones', { url: 'https://user:pw@93.184.215.14/' }),
      400,
      'validation_failed',
      '/url',
    );
    assertFieldError(
      await call('POST', '/api/v1/notificaciones', { url: 'https://93.184.215.14/', events: ['nope'] }),
      400,
      'validation_failed',
      '/events/0',
    );
    assertFieldError(
      await call('POST', '/api/v1/notificaciones', { url: 'https://93.184.215.14/', events: [] }),
      400,
      'validation_failed',
      '/events',
    );
    assertFieldError(
      await call('POST', '/api/v1/notificaciones', { url: 'https://93.184.215.14/', colour: 'red' }),
      400,
      'validation_failed',
      '/colour',
    );
    assertFieldError(
      await call('GET', '/api/v1/notificaciones/entregas?status=lost'),
      400,
      'validation_failed',
      '/status',
    );
    assertFieldError(
      await call('GET', '/api/v1/notificaciones/entregas?cursor=garbage'),
      400,
      'validation_failed',
      '/cursor',
    );
  });

  for (const [label, url] of [
    ['loopback', 'http://127.0.0.1/hook'],
    ['a private address', 'http://10.0.0.1/hook'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['a name resolving to loopback', 'http://localhost:8080/hook'],
    ['IPv6 loopback', 'http://[::1]/hook'],
    ['an IPv4-mapped private address', 'http://[::ffff:192.168.1.1]/hook'],
    ['CGNAT space', 'https://100.64.0.1/hook'],
  ] as const) {
    it(`refuses ${label} as a target at creation (${url})`, async () => {
      const error = assertFieldError(
        await call('POST', '/api/v1/notificaciones', { url }),
        400,
        'validation_failed',
        '/url',
      );
      assert.equal(error.code, 'url_refused');
      assert.match(error.detail, /loopback, private, link-local, metadata or reserved/);
      assertFieldError(
        await call('PATCH', `/api/v1/notificaciones/${endpoint.id}`, { url }),
        400,
        'validation_failed',
        '/url',
      );
    });
  }

  it("keeps every webhook route to the caller's company: another company's ids are 404, its lists empty", async () => {
    const id = endpoint.id;
    assertProblem(
      await call('GET', `/api/v1/notificaciones/${id}`, undefined, otherKey),
      404,
      'webhook_endpoint_not_found',
    );
    assertProblem(
      await call('PATCH', `/api/v1/notificaciones/${id}`, { description: 'mine now' }, otherKey),
      404,
      'webhook_endpoint_not_found',
    );
    assertProblem(
      await call('POST', `/api/v1/notificaciones/${id}/rotar-secreto`, undefined, otherKey),
      404,
      'webhook_endpoint_not_found',
    );
    assertProblem(
      await call('POST', `/api/v1/notificaciones/${id}/prueba`, undefined, otherKey),
      404,
      'webhook_endpoint_not_found',
    );
    const test = await call('POST', `/api/v1/notificaciones/${id}/prueba`);
    assert.equal(test.statusCode, 202, test.body);
    const deliveryId = test.json<{ data: { deliveryId: string } }>().data.deliveryId;
    assertProblem(
      await call('POST', `/api/v1/notificaciones/entregas/${deliveryId}/reenvios`, undefined, otherKey),
      404,
      'webhook_delivery_not_found',
    );
    assert.deepEqual(
      (await call('GET', '/api/v1/notificaciones', undefined, otherKey)).json<{ data: unknown[] }>().data,
      [],
    );
    assert.deepEqual(
      (await call('GET', `/api/v1/notificaciones/entregas?endpointId=${id}`, undefined, otherKey)).json<{
        data: unknown[];
      }>().data,
      [],
    );
    assert.equal(
      (await call('GET', `/api/v1/notificaciones/entregas?endpointId=${id}`)).json<{ data: unknown[] }>().data.length,
      1,
    );
    // And a key without webhooks:manage is refused on every route.
    for (const [method, url] of [
      ['GET', '/api/v1/notificaciones/tipos-evento'],
      ['GET', '/api/v1/notificaciones'],
      ['POST', '/api/v1/notificaciones'],
      ['GET', '/api/v1/notificaciones/entregas'],
      ['POST', `/api/v1/notificaciones/entregas/${deliveryId}/reenvios`],
      ['GET', `/api/v1/notificaciones/${id}`],
      ['PATCH', `/api/v1/notificaciones/${id}`],
      ['POST', `/api/v1/notificaciones/${id}/rotar-secreto`],
      ['POST', `/api/v1/notificaciones/${id}/prueba`],
    ] as const) {
      assertProblem(await call(method, url, method === 'GET' ? undefined : {}, readOnlyKey), 403, 'scope_missing');
    }
  });

  it('writes no secret to the log', async () => {
    const created = (await call('POST', '/api/v1/notificaciones', { url: 'https://93.184.215.14/logged' })).json<{
      data: Endpoint;
    }>().data;
    const rotated = (await call('POST', `/api/v1/notificaciones/${created.id}/rotar-secreto`)).json<{
      data: Endpoint;
    }>().data;
    assert.ok(testApp.logs.lines.length > 0);
    for (const secret of [created.secret, rotated.secret, endpoint.secret]) {
      assert.ok(secret !== undefined);
      assert.deepEqual(testApp.logs.linesWith(secret.slice(6, 30)), []);
    }
  });
});

describe('webhook endpoints in PRODUCTION', { timeout: 60_000 }, () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await startTestApp({ env: { FISCAL_ENV: 'PRODUCTION', DGII_SANDBOX: 'off' } });
  });
  after(() => testApp.close());

  it('takes https only', async () => {
    const { apiKey } = await testApp.issueKey(await testApp.provisionCompany(), ['webhooks:manage']);
    const refused = assertFieldError(
      await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/notificaciones',
        headers: { 'x-api-key': apiKey },
        payload: { url: 'http://93.184.215.14/hook' },
      }),
      400,
      'validation_failed',
      '/url',
    );
    assert.match(refused.detail, /https in PRODUCTION/);
    const created = await testApp.app.inject({
      method: 'POST',
      url: '/api/v1/notificaciones',
      headers: { 'x-api-key': apiKey },
      payload: { url: 'https://93.184.215.14/hook' },
    });
    assert.equal(created.statusCode, 201, created.body);
  });
});
