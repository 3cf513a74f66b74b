// The control plane's side of the service: the signature guard on /internal/cloud/v1, the provisioning and
// permission events, certificate installation, and API keys issued, listed and revoked through signed calls.
import assert from 'node:assert/strict';
import { createHash, randomUUID, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createSelfSignedP12, type SelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { signMessage } from '../src/platform/http/signed-message.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { cloudSecret, nextRnc, startTestApp, type TestApp } from './support/test-app.js';

const eventsUrl = '/internal/cloud/v1/events';
const day = 24 * 3_600_000;

function nowSeconds(): number {
  return Math.floor(Date.now() / 1_000);
}

function newEventId(): string {
  return `evt_${randomUUID()}`;
}

/** Headers for a body signed the way the control plane signs it, with any part overridable. */
function signedHeaders(
  body: string,
  options: { id?: string; timestamp?: number; secret?: string } = {},
): Record<string, string> {
  const id = options.id ?? newEventId();
  const timestamp = options.timestamp ?? nowSeconds();
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signMessage(options.secret ?? cloudSecret, id, timestamp, body),
  };
}

/** An RNC whose check digit is wrong: the valid one with its last digit changed. */
function withWrongCheckDigit(rnc: string): string {
  return `${rnc.slice(0, -1)}${(Number(rnc.slice(-1)) + 1) % 10}`;
}

function provisioning(rnc: string, overrides: Record<string, unknown> = {}) {
  return { rnc, legalName: 'Comercial Prueba SRL', plan: 'pro', capabilities: ['issuing', 'receiving'], ...overrides };
}

interface Outcome {
  eventId: string;
  type: string;
  companyId: string;
  outcome: 'applied' | 'unchanged';
}

function assertOutcome(response: LightMyRequestResponse, outcome: Outcome['outcome']): Outcome {
  assert.equal(response.statusCode, 200, response.body);
  const data = response.json<{ data: Outcome }>().data;
  assert.equal(data.outcome, outcome);
  return data;
}

interface CompanyView {
  company: {
    id: string;
    rnc: string;
    legalName: string;
    tradeName: string | null;
    permissions: 'current' | 'suspended';
    suspendedReason: string | null;
    certificate: {
      subject: string;
      issuer: string;
      notAfter: string;
      notBefore: string;
      fingerprintSha256: string;
    } | null;
  };
  entitlement: { plan: string; capabilities: string[] };
}

async function viewCompany(
  t: TestApp,
  apiKey: string,
): Promise<{ response: LightMyRequestResponse; view: CompanyView }> {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/empresa', headers: { 'x-api-key': apiKey } });
  assert.equal(response.statusCode, 200, response.body);
  return { response, view: response.json<{ data: CompanyView }>().data };
}

async function companyRow(t: TestApp, where: { id: string } | { rnc: string }) {
  const query = t.application.database.db.selectFrom('companies').selectAll();
  return 'id' in where ? query.where('id', '=', where.id).execute() : query.where('rnc', '=', where.rnc).execute();
}

async function recordedMessage(t: TestApp, id: string) {
  return t.application.database.db.selectFrom('cloud_messages').selectAll().where('id', '=', id).executeTakeFirst();
}

describe('control-plane signature guard', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
  });

  after(async () => {
    await t.close();
  });

  function post(body: string, headers: Record<string, string>) {
    return t.app.inject({ method: 'POST', url: eventsUrl, headers, payload: body });
  }

  function provisionBody(rnc: string): string {
    return JSON.stringify({ type: 'company.provisioned', data: provisioning(rnc) });
  }

  async function assertNoCompany(rnc: string) {
    assert.deepEqual(await companyRow(t, { rnc }), [], `no company may exist with RNC ${rnc}`);
  }

  it('applies an event signed with the shared secret', async () => {
    const rnc = nextRnc();
    assertOutcome(await post(provisionBody(rnc), signedHeaders(provisionBody(rnc))), 'applied');
    assert.equal((await companyRow(t, { rnc })).length, 1);
  });

  it('answers 401 signature_invalid to a signature made with another secret, and applies nothing', async () => {
    const rnc = nextRnc();
    const body = provisionBody(rnc);
    assertProblem(
      await post(body, signedHeaders(body, { secret: 'another-secret-of-enough-length-0123' })),
      401,
      'signature_invalid',
    );
    await assertNoCompany(rnc);
  });

  for (const missing of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    it(`answers 401 signature_missing when ${missing} is absent`, async () => {
      const rnc = nextRnc();
      const body = provisionBody(rnc);
      const headers = Object.fromEntries(Object.entries(signedHeaders(body)).filter(([name]) => name !== missing));
      assertProblem(await post(body, headers), 401, 'signature_missing');
      await assertNoCompany(rnc);
    });
  }

  it('answers 401 signature_missing when no signature header is sent at all', async () => {
    const body = provisionBody(nextRnc());
    assertProblem(await post(body, { 'content-type': 'application/json' }), 401, 'signature_missing');
  });

  for (const [name, offsetSeconds] of [
    ['six minutes old', -360],
    ['six minutes in the future', 360],
  ] as const) {
    it(`answers 401 signature_stale to a correctly signed event whose timestamp is ${name}`, async () => {
      const rnc = nextRnc();
      const body = provisionBody(rnc);
      assertProblem(
        await post(body, signedHeaders(body, { timestamp: nowSeconds() + offsetSeconds })),
        401,
        'signature_stale',
      );
      await assertNoCompany(rnc);
    });
  }

  it('accepts a timestamp four minutes old (inside the five-minute window)', async () => {
    const rnc = nextRnc();
    const body = provisionBody(rnc);
    assertOutcome(await post(body, signedHeaders(body, { timestamp: nowSeconds() - 240 })), 'applied');
  });

  it('answers 401 signature_invalid to a timestamp that is not Unix seconds', async () => {
    const body = provisionBody(nextRnc());
    const headers = { ...signedHeaders(body), 'webhook-timestamp': new Date().toISOString() };
    assertProblem(await post(body, headers), 401, 'signature_invalid');
  });

  it('answers 401 signature_invalid to a body altered after signing, and applies neither version', async () => {
    const signedRnc = nextRnc();
    const sentRnc = nextRnc();
    const headers = signedHeaders(provisionBody(signedRnc));
    assertProblem(await post(provisionBody(sentRnc), headers), 401, 'signature_invalid');
    await assertNoCompany(signedRnc);
    await assertNoCompany(sentRnc);
  });

  it('answers 401 signature_invalid when the webhook-id is changed after signing', async () => {
    const body = provisionBody(nextRnc());
    const headers = { ...signedHeaders(body), 'webhook-id': newEventId() };
    assertProblem(await post(body, headers), 401, 'signature_invalid');
  });

  it('accepts a message carrying several signatures when one matches (secret rotation)', async () => {
    const rnc = nextRnc();
    const body = provisionBody(rnc);
    const headers = signedHeaders(body);
    const stale = signedHeaders(body, {
      id: headers['webhook-id'],
      timestamp: Number(headers['webhook-timestamp']),
      secret: 'the-previous-secret-0123456789',
    });
    headers['webhook-signature'] = `${stale['webhook-signature'] ?? ''} ${headers['webhook-signature'] ?? ''}`;
    assertOutcome(await post(body, headers), 'applied');
  });

  it('guards every /internal/cloud/v1 route in the route table', async (context) => {
    const cloudRoutes = (t.application.http?.catalogue ?? []).filter((entry) =>
      entry.url.startsWith('/internal/cloud/v1'),
    );
    assert.ok(cloudRoutes.length >= 4, 'events, and issue, list and revoke keys');
    for (const route of cloudRoutes) {
      await context.test(`${route.method} ${route.url}`, async () => {
        assert.equal(route.auth.kind, 'cloud');
        const url = route.url.replace(/:[A-Za-z0-9_]+/g, 'x');
        assertProblem(await t.app.inject({ method: route.method, url }), 401, 'signature_missing');
      });
    }
  });
});

describe('provisioning and permission events', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
  });

  after(async () => {
    await t.close();
  });

  it('answers 409 event_replayed to a replayed event id and leaves the state as it was', async () => {
    const rnc = nextRnc();
    const eventId = newEventId();
    const { companyId } = assertOutcome(
      await t.sendEvent('company.provisioned', provisioning(rnc), eventId),
      'applied',
    );

    assertProblem(await t.sendEvent('company.provisioned', provisioning(rnc), eventId), 409, 'event_replayed');
    assertProblem(
      await t.sendEvent('company.updated', { companyId, legalName: 'Nombre Cambiado SRL' }, eventId),
      409,
      'event_replayed',
    );

    const rows = await companyRow(t, { rnc });
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.legal_name, 'Comercial Prueba SRL');
  });

  it('lets a failed event be retried under the same id once its body is fixed', async () => {
    const rnc = nextRnc();
    const eventId = newEventId();
    const failed = await t.sendEvent('company.provisioned', provisioning(withWrongCheckDigit(rnc)), eventId);
    const error = assertFieldError(failed, 400, 'validation_failed', '/data/rnc');
    assert.equal(error.code, 'rnc_check_digit');
    assert.equal(await recordedMessage(t, eventId), undefined, 'a failed event leaves no record of its id');

    const retried = assertOutcome(await t.sendEvent('company.provisioned', provisioning(rnc), eventId), 'applied');
    assert.equal(retried.eventId, eventId);
    assert.equal((await companyRow(t, { rnc }))[0]?.id, retried.companyId);
  });

  it('provisions an RNC sent twice under two ids as one company, the second time unchanged', async () => {
    const rnc = nextRnc();
    const first = assertOutcome(await t.sendEvent('company.provisioned', provisioning(rnc)), 'applied');
    const second = assertOutcome(await t.sendEvent('company.provisioned', provisioning(rnc)), 'unchanged');
    assert.equal(second.companyId, first.companyId);
    assert.equal((await companyRow(t, { rnc })).length, 1);
  });

  it('brings an already provisioned RNC up to date when it is provisioned with new values', async () => {
    const rnc = nextRnc();
    const first = assertOutcome(await t.sendEvent('company.provisioned', provisioning(rnc)), 'applied');
    const second = assertOutcome(
      await t.sendEvent('company.provisioned', provisioning(rnc, { plan: 'enterprise' })),
      'applied',
    );
    assert.equal(second.companyId, first.companyId);
    assert.equal((await companyRow(t, { rnc }))[0]?.plan, 'enterprise');
  });

  it('applies company.updated, shows it on the company route, and reports the same update again as unchanged', async () => {
    const companyId = await t.provisionCompany();
    const { apiKey } = await t.issueKey(companyId, ['documents:read']);
    const update = {
      companyId,
      legalName: 'Distribuidora Actualizada SRL',
      tradeName: 'Actualizada',
      plan: 'basic',
      capabilities: ['issuing'],
    };

    assertOutcome(await t.sendEvent('company.updated', update), 'applied');
    const { view } = await viewCompany(t, apiKey);
    assert.equal(view.company.legalName, 'Distribuidora Actualizada SRL');
    assert.equal(view.company.tradeName, 'Actualizada');
    assert.deepEqual(view.entitlement, { plan: 'basic', capabilities: ['issuing'] });

    assertOutcome(await t.sendEvent('company.updated', update), 'unchanged');
    assertOutcome(await t.sendEvent('company.updated', { companyId, tradeName: null }), 'applied');
    assert.equal((await viewCompany(t, apiKey)).view.company.tradeName, null);
  });

  it('suspends with company.permissions_changed, refusing the key with 403, and reinstates so the key works again', async () => {
    const companyId = await t.provisionCompany();
    const { apiKey } = await t.issueKey(companyId, ['documents:read']);
    await viewCompany(t, apiKey);

    assertOutcome(
      await t.sendEvent('company.permissions_changed', { companyId, permissions: 'suspended', reason: 'plan vencido' }),
      'applied',
    );
    assertProblem(
      await t.app.inject({ method: 'GET', url: '/api/v1/empresa', headers: { 'x-api-key': apiKey } }),
      403,
      'company_suspended',
    );
    assert.equal((await companyRow(t, { id: companyId }))[0]?.suspended_reason, 'plan vencido');
    assertOutcome(
      await t.sendEvent('company.permissions_changed', { companyId, permissions: 'suspended', reason: 'plan vencido' }),
      'unchanged',
    );

    assertOutcome(await t.sendEvent('company.permissions_changed', { companyId, permissions: 'current' }), 'applied');
    const { view } = await viewCompany(t, apiKey);
    assert.equal(view.company.permissions, 'current');
    assert.equal(view.company.suspendedReason, null);
  });

  it('suspends with company.suspended, keeping the reason, and refuses the key with 403 company_suspended', async () => {
    const companyId = await t.provisionCompany();
    const { apiKey } = await t.issueKey(companyId, ['documents:read']);

    const outcome = assertOutcome(
      await t.sendEvent('company.suspended', { companyId, reason: 'fraude reportado' }),
      'applied',
    );
    assert.equal(outcome.companyId, companyId);
    assertProblem(
      await t.app.inject({ method: 'GET', url: '/api/v1/empresa', headers: { 'x-api-key': apiKey } }),
      403,
      'company_suspended',
    );
    const row = (await companyRow(t, { id: companyId }))[0];
    assert.equal(row?.permissions, 'suspended');
    assert.equal(row.suspended_reason, 'fraude reportado');
  });

  it('answers 400 naming /type for an unknown event type', async () => {
    const response = await t.sendEvent('company.exploded', { companyId: 'cmp_abc' });
    assertFieldError(response, 400, 'validation_failed', '/type');
  });

  it('answers 400 naming the pointer of an unknown property in data', async () => {
    const response = await t.sendEvent('company.provisioned', { ...provisioning(nextRnc()), favouriteColour: 'blue' });
    const error = assertFieldError(response, 400, 'validation_failed', '/data/favouriteColour');
    assert.equal(error.code, 'additionalProperties');
  });

  it('answers 400 naming the pointer of a missing required field in data', async () => {
    const { legalName: _legalName, ...withoutName } = provisioning(nextRnc());
    assertFieldError(
      await t.sendEvent('company.provisioned', withoutName),
      400,
      'validation_failed',
      '/data/legalName',
    );
  });

  const forUnknownCompany: [string, Record<string, unknown>][] = [
    ['company.updated', { legalName: 'Nadie SRL' }],
    ['company.permissions_changed', { permissions: 'suspended' }],
    ['company.suspended', { reason: 'no existe' }],
    ['certificate.installed', { p12Base64: 'AAAAAAAA', password: 'x' }],
  ];
  for (const [type, data] of forUnknownCompany) {
    it(`answers 404 company_not_found to ${type} for an unknown companyId`, async () => {
      const eventId = newEventId();
      assertProblem(
        await t.sendEvent(type, { companyId: 'cmp_doesNotExist', ...data }, eventId),
        404,
        'company_not_found',
      );
      assert.equal(await recordedMessage(t, eventId), undefined);
    });
  }
});

describe('certificate.installed', () => {
  const password = 'clave-del-certificado-7731';
  let t: TestApp;
  let companyId: string;
  let apiKey: string;
  let valid: SelfSignedP12;
  let expired: SelfSignedP12;
  let validNotAfter: Date;

  /** Whole seconds: X.509 validity has no milliseconds. */
  function at(offsetMs: number): Date {
    return new Date(Math.floor((Date.now() + offsetMs) / 1_000) * 1_000);
  }

  function install(p12: Buffer, withPassword = password) {
    return t.sendEvent('certificate.installed', {
      companyId,
      p12Base64: p12.toString('base64'),
      password: withPassword,
    });
  }

  /** The body lines of a PEM, any of which would betray the key if it showed up somewhere. */
  function pemBodyLines(pem: string): string[] {
    return pem.split('\n').filter((line) => line.length > 0 && !line.startsWith('-----'));
  }

  before(async () => {
    t = await startTestApp();
    companyId = await t.provisionCompany();
    apiKey = (await t.issueKey(companyId, ['documents:read'])).apiKey;
    validNotAfter = at(365 * day);
    valid = createSelfSignedP12({
      commonName: 'Empresa de Prueba SRL',
      serialNumber: '101010101',
      notBefore: at(-day),
      notAfter: validNotAfter,
      password,
    });
    expired = createSelfSignedP12({
      commonName: 'Empresa Vencida SRL',
      notBefore: at(-400 * day),
      notAfter: at(-day),
      password,
    });
  });

  after(async () => {
    await t.close();
  });

  it('answers 422 certificate_unreadable pointing at /data/password for a wrong password', async () => {
    const error = assertFieldError(
      await install(valid.p12, 'not-the-password'),
      422,
      'certificate_unreadable',
      '/data/password',
    );
    assert.equal(error.code, 'p12_wrong_password');
  });

  it('answers 422 certificate_unreadable pointing at /data/p12Base64 for bytes that are no .p12', async () => {
    assertFieldError(
      await install(Buffer.from('this is not a pkcs12 file at all')),
      422,
      'certificate_unreadable',
      '/data/p12Base64',
    );
  });

  it('answers 422 certificate_unusable for an expired certificate', async () => {
    const error = assertFieldError(await install(expired.p12), 422, 'certificate_unusable', '/data/p12Base64');
    assert.equal(error.code, 'certificate_expired');
  });

  it('stores nothing for a refused certificate', async () => {
    const rows = await t.application.database.db
      .selectFrom('company_certificates')
      .select('id')
      .where('company_id', '=', companyId)
      .execute();
    assert.deepEqual(rows, []);
    assert.equal((await viewCompany(t, apiKey)).view.company.certificate, null);
  });

  it('installs a usable certificate and shows its summary on the company route, never the key, the file or the password', async () => {
    const outcome = assertOutcome(await install(valid.p12), 'applied');
    assert.equal(outcome.companyId, companyId);

    const { response, view } = await viewCompany(t, apiKey);
    const x509 = new X509Certificate(valid.certificatePem);
    const certificate = view.company.certificate;
    assert.ok(certificate !== null);
    assert.match(certificate.subject, /CN=Empresa de Prueba SRL/);
    assert.equal(certificate.subject, x509.subject);
    assert.equal(certificate.notAfter, validNotAfter.toISOString());
    assert.equal(certificate.notAfter, new Date(x509.validTo).toISOString());
    assert.equal(certificate.fingerprintSha256, x509.fingerprint256.replace(/:/g, '').toLowerCase());

    const text = response.body;
    for (const secret of [
      password,
      valid.p12.toString('base64'),
      valid.privateKeyPem,
      ...pemBodyLines(valid.privateKeyPem),
    ]) {
      assert.ok(!text.includes(secret), 'the company route must not reveal the private key, the .p12 or its password');
    }
    assert.ok(!text.includes('PRIVATE KEY'));
  });

  it('reports the same certificate installed again as unchanged, keeping one active certificate', async () => {
    assertOutcome(await install(valid.p12), 'unchanged');
    const rows = await t.application.database.db
      .selectFrom('company_certificates')
      .select(['status'])
      .where('company_id', '=', companyId)
      .execute();
    assert.deepEqual(rows, [{ status: 'active' }]);
  });

  it('keeps the private key sealed in the database, and the sealed key opens to the installed one', async () => {
    const row = await t.application.database.db
      .selectFrom('company_certificates')
      .select(['private_key_sealed', 'certificate_pem'])
      .where('company_id', '=', companyId)
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    assert.match(row.private_key_sealed, /^v1\./);
    assert.ok(!row.private_key_sealed.includes('PRIVATE KEY'));
    for (const line of pemBodyLines(valid.privateKeyPem))
      assert.ok(!row.private_key_sealed.includes(line), 'no line of the PEM is stored in clear');
    assert.ok(!row.private_key_sealed.includes(Buffer.from(valid.privateKeyPem).toString('base64').slice(0, 40)));

    const identity = await t.application.services.companies.signingIdentity(companyId);
    assert.ok(identity !== undefined);
    assert.equal(identity.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), valid.privateKeyPem);
    assert.equal(
      new X509Certificate(row.certificate_pem).fingerprint256,
      new X509Certificate(valid.certificatePem).fingerprint256,
    );
  });

  it('replaces the active certificate when another one is installed', async () => {
    const next = createSelfSignedP12({
      commonName: 'Empresa de Prueba SRL',
      notBefore: at(-day),
      notAfter: at(730 * day),
      password,
    });
    assertOutcome(await install(next.p12), 'applied');
    const rows = await t.application.database.db
      .selectFrom('company_certificates')
      .select(['status', 'fingerprint_sha256'])
      .where('company_id', '=', companyId)
      .execute();
    assert.deepEqual(rows.map((row) => row.status).sort(), ['active', 'replaced']);
    const { view } = await viewCompany(t, apiKey);
    assert.equal(
      view.company.certificate?.fingerprintSha256,
      new X509Certificate(next.certificatePem).fingerprint256.replace(/:/g, '').toLowerCase(),
    );
  });
});

describe('API keys through the signed cloud routes', () => {
  let t: TestApp;
  let companyId: string;

  interface KeyMetadata {
    keyId: string;
    displayPrefix: string;
    status: 'active' | 'revoked' | 'expired';
    revokedAt: string | null;
    lastUsedAt: string | null;
    [field: string]: unknown;
  }

  const keysUrl = (company: string) => `/internal/cloud/v1/companies/${company}/api-keys`;

  async function listKeys(): Promise<{ response: LightMyRequestResponse; keys: KeyMetadata[] }> {
    const response = await t.cloud('GET', keysUrl(companyId));
    assert.equal(response.statusCode, 200, response.body);
    return { response, keys: response.json<{ data: KeyMetadata[] }>().data };
  }

  function useKey(apiKey: string) {
    return t.app.inject({ method: 'GET', url: '/api/v1/empresa', headers: { 'x-api-key': apiKey } });
  }

  before(async () => {
    t = await startTestApp();
    companyId = await t.provisionCompany();
  });

  after(async () => {
    await t.close();
  });

  it('issues a key with 201, shows the full key once, lists it as metadata only, and the key works', async () => {
    const issued = await t.cloud('POST', keysUrl(companyId), {
      name: 'ERP de pruebas',
      scopes: ['documents:create', 'documents:read'],
    });
    assert.equal(issued.statusCode, 201, issued.body);
    const key = issued.json<{
      data: { apiKey: string; keyId: string; environment: string; scopes: string[]; expiresAt: string | null };
    }>().data;
    assert.match(key.apiKey, /^ecf_test_/);
    assert.equal(key.environment, 'TEST');
    assert.deepEqual(key.scopes, ['documents:create', 'documents:read']);
    assert.equal(key.expiresAt, null);

    const { response, keys } = await listKeys();
    const listed = keys.find((candidate) => candidate.keyId === key.keyId);
    assert.ok(listed !== undefined);
    assert.equal(listed.status, 'active');
    assert.ok(!('apiKey' in listed));
    for (const field of ['keyHash', 'key_hash', 'hash']) assert.ok(!(field in listed), `no ${field} in the list`);
    assert.ok(!response.body.includes(key.apiKey), 'the list never repeats the full key');
    assert.ok(!response.body.includes(createHash('sha256').update(key.apiKey).digest('hex')), 'nor its hash');
    const prefix = listed.displayPrefix.replace(/…$/, '');
    assert.ok(
      prefix.length >= 'ecf_test_'.length && key.apiKey.startsWith(prefix),
      `${listed.displayPrefix} is a prefix of the key`,
    );
    assert.ok(prefix.length < key.apiKey.length / 2, 'the prefix is too short to use');

    const used = await useKey(key.apiKey);
    assert.equal(used.statusCode, 200, used.body);
    assert.equal(used.json<{ data: { company: { id: string } } }>().data.company.id, companyId);
    const afterUse = (await listKeys()).keys.find((candidate) => candidate.keyId === key.keyId);
    assert.notEqual(afterUse?.lastUsedAt, null);
  });

  it('revokes with 204, again with 204, and the revoked key answers 401 api_key_revoked', async () => {
    const { apiKey, keyId } = await t.issueKey(companyId, ['documents:read']);
    assert.equal((await useKey(apiKey)).statusCode, 200);

    const first = await t.cloud('DELETE', `${keysUrl(companyId)}/${keyId}`);
    assert.equal(first.statusCode, 204, first.body);
    assert.equal(first.body, '');
    const revokedAt = (await listKeys()).keys.find((candidate) => candidate.keyId === keyId)?.revokedAt;
    assert.ok(typeof revokedAt === 'string');

    const second = await t.cloud('DELETE', `${keysUrl(companyId)}/${keyId}`);
    assert.equal(second.statusCode, 204, second.body);
    assertProblem(await useKey(apiKey), 401, 'api_key_revoked');

    const listed = (await listKeys()).keys.find((candidate) => candidate.keyId === keyId);
    assert.equal(listed?.status, 'revoked');
    assert.equal(listed.revokedAt, revokedAt, 'revoking again keeps the first revocation time');
  });

  it('answers 404 api_key_not_found when revoking an unknown key id', async () => {
    assertProblem(await t.cloud('DELETE', `${keysUrl(companyId)}/key_doesNotExist0000`), 404, 'api_key_not_found');
  });

  it("answers 404 api_key_not_found when revoking another company's key, which keeps working", async () => {
    const otherCompany = await t.provisionCompany();
    const other = await t.issueKey(otherCompany, ['documents:read']);
    assertProblem(await t.cloud('DELETE', `${keysUrl(companyId)}/${other.keyId}`), 404, 'api_key_not_found');
    assert.equal((await useKey(other.apiKey)).statusCode, 200);
  });

  const unknownCompanyCalls: ['GET' | 'POST' | 'DELETE', string, unknown][] = [
    ['POST', keysUrl('cmp_doesNotExist'), { name: 'x', scopes: ['documents:read'] }],
    ['GET', keysUrl('cmp_doesNotExist'), undefined],
    ['DELETE', `${keysUrl('cmp_doesNotExist')}/key_doesNotExist0000`, undefined],
  ];
  for (const [method, url, body] of unknownCompanyCalls) {
    it(`answers 404 company_not_found to ${method} for an unknown company`, async () => {
      assertProblem(await t.cloud(method, url, body), 404, 'company_not_found');
    });
  }

  it('answers 400 pointing at /expiresAt for an expiry in the past, and issues nothing', async () => {
    const before = (await listKeys()).keys.length;
    const response = await t.cloud('POST', keysUrl(companyId), {
      name: 'x',
      scopes: ['documents:read'],
      expiresAt: new Date(Date.now() - 60_000).toISOString(),
    });
    assertFieldError(response, 400, 'validation_failed', '/expiresAt');
    assert.equal((await listKeys()).keys.length, before);
  });

  it('answers 400 pointing at the scope for an invalid scope name', async () => {
    const response = await t.cloud('POST', keysUrl(companyId), {
      name: 'x',
      scopes: ['documents:read', 'documents:delete'],
    });
    assertFieldError(response, 400, 'validation_failed', '/scopes/1');
  });

  it('answers 409 event_replayed to a replayed issue id and issues no second key', async () => {
    const before = (await listKeys()).keys.length;
    const id = newEventId();
    const first = await t.cloud(
      'POST',
      keysUrl(companyId),
      { name: 'una vez', scopes: ['documents:read'] },
      { 'webhook-id': id },
    );
    assert.equal(first.statusCode, 201, first.body);
    assertProblem(
      await t.cloud('POST', keysUrl(companyId), { name: 'una vez', scopes: ['documents:read'] }, { 'webhook-id': id }),
      409,
      'event_replayed',
    );
    assert.equal((await listKeys()).keys.length, before + 1);
  });

  it('answers 409 event_replayed to a replayed revoke id', async () => {
    const { keyId } = await t.issueKey(companyId, ['documents:read']);
    const id = newEventId();
    assert.equal(
      (await t.cloud('DELETE', `${keysUrl(companyId)}/${keyId}`, undefined, { 'webhook-id': id })).statusCode,
      204,
    );
    assertProblem(
      await t.cloud('DELETE', `${keysUrl(companyId)}/${keyId}`, undefined, { 'webhook-id': id }),
      409,
      'event_replayed',
    );
  });
});

describe('cloud routes without CLOUD_SIGNING_SECRET', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ env: { CLOUD_SIGNING_SECRET: '' } });
  });

  after(async () => {
    await t.close();
  });

  it('reads an empty CLOUD_SIGNING_SECRET as unset', () => {
    assert.equal(t.config.cloudSigningSecret, undefined);
  });

  it('answers 404 route_not_found on every /internal/cloud/v1 route, signed or not', async (context) => {
    const cloudRoutes = (t.application.http?.catalogue ?? []).filter((entry) =>
      entry.url.startsWith('/internal/cloud/v1'),
    );
    assert.ok(cloudRoutes.length >= 4);
    for (const route of cloudRoutes) {
      await context.test(`${route.method} ${route.url}`, async () => {
        const url = route.url.replace(/:companyId/, 'cmp_abc').replace(/:[A-Za-z0-9_]+/g, 'x');
        const body =
          route.method === 'POST' ? { type: 'company.provisioned', data: provisioning(nextRnc()) } : undefined;
        assertProblem(await t.cloud(route.method as 'GET' | 'POST' | 'DELETE', url, body), 404, 'route_not_found');
        assertProblem(await t.app.inject({ method: route.method, url }), 404, 'route_not_found');
      });
    }
  });

  it('still serves the rest of the API', async () => {
    assertProblem(await t.app.inject({ method: 'GET', url: '/api/v1/empresa' }), 401, 'api_key_missing');
    assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  });
});
