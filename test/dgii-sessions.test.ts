// SPEC §4.3's DGII session routes against the sandbox: a company that signs outside the service gets a seed, hands
// it back signed, and its DGII session (never shown, stored encrypted) is what its documents are sent with; the
// connection test authenticates for real and reports each step without the token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signXml } from '../src/fiscal/xmldsig/index.js';
import { certificateFingerprint, ensureTestRanges, upsertTaxpayer } from '../src/sandbox/index.js';
import { assertProblem } from './support/assert-problem.js';
import { fictitiousRnc } from './support/ecf-documents.js';
import { signedEcf, strangerKey } from './support/sandbox-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { testSigningKey } from './support/xmldsig-kit.js';

interface ConnectionTest {
  ok: boolean;
  steps: { step: string; ok: boolean; outcome: string }[];
  sessionExpiresAt: string | null;
}

describe('DGII sessions and the connection test (sandbox)', { timeout: 180_000 }, () => {
  let world: SendingWorld;
  const rnc = fictitiousRnc('13155555');
  let key: string;
  let companyId: string;
  const call = (
    method: 'GET' | 'POST',
    url: string,
    payload?: string | Record<string, unknown>,
    headers: Record<string, string> = {},
  ) =>
    world.app.app.inject({
      method,
      url,
      headers: { 'x-api-key': key, ...headers },
      ...(payload === undefined ? {} : { payload }),
    });

  before(async () => {
    world = await startSendingWorld();
    // A company with no certificate here: it signs with its own, which DGII knows as delegated.
    companyId = await world.app.provisionCompany({ rnc });
    key = (
      await world.app.issueKey(companyId, [
        'documents:create',
        'documents:read',
        'documents:send',
        'sequences:manage',
        'certification:manage',
      ])
    ).apiKey;
    assert.equal(
      (
        await call('POST', '/api/v1/secuencias/rangos', {
          ecfType: '31',
          from: 'E310000000001',
          to: 'E310000001000',
          expiresOn: `31-12-${String(new Date().getUTCFullYear() + 1)}`,
        })
      ).statusCode,
      201,
    );
    const { db, clock } = world.sandbox.sandbox.context;
    await upsertTaxpayer(db, {
      rnc,
      name: 'Firma Externa SRL',
      certificateSha256: [certificateFingerprint(testSigningKey().certificatePem)],
    });
    await ensureTestRanges(db, rnc, 'testecf', clock.now());
  });
  after(() => world.close());

  it('reports a failed credentials step for a company with neither certificate nor session', async () => {
    const response = await call('POST', '/api/v1/dgii/prueba-conexion');
    assert.equal(response.statusCode, 200, response.body);
    const report = response.json<{ data: ConnectionTest }>().data;
    assert.equal(report.ok, false);
    assert.deepEqual(
      report.steps.map((step) => [step.step, step.ok]),
      [['credentials', false]],
    );
  });

  it('refuses a seed signed by a certificate DGII does not know for the company, storing nothing', async () => {
    const seed = (await call('GET', '/api/v1/dgii/sesion/semilla')).json<{ data: { seedXml: string } }>().data.seedXml;
    const refused = await call('POST', '/api/v1/dgii/sesion', signXml(seed, strangerKey()), {
      'content-type': 'application/xml',
    });
    assertProblem(refused, 422, 'dgii_session_refused');
    const stored = await world.app.application.database.db
      .selectFrom('dgii_sessions')
      .selectAll()
      .where('company_id', '=', companyId)
      .execute();
    assert.deepEqual(stored, []);
  });

  let failedId = '';
  it('fails a document sent with no way to authenticate at once, opening a failed fiscal job', async () => {
    const document = signedEcf('31', 1, { rnc, key: testSigningKey() });
    const handedIn = await call('POST', '/api/v1/documentos/xml-firmado', document.xml, {
      'content-type': 'application/xml',
    });
    assert.equal(handedIn.statusCode, 201, handedIn.body);
    failedId = handedIn.json<{ data: { id: string } }>().data.id;
    assert.equal((await call('POST', `/api/v1/documentos/${failedId}/enviar`)).statusCode, 202);
    let status = 'queued';
    for (let tries = 0; tries < 300 && status !== 'send_failed'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await call('GET', `/api/v1/documentos/${failedId}`)).json<{ data: { status: string } }>().data.status;
    }
    assert.equal(status, 'send_failed');
    const open = (await call('GET', '/api/v1/trabajos-fallidos?open=true')).json<{
      data: { documentId: string; kind: string; open: boolean; reason: string }[];
    }>().data;
    assert.deepEqual(
      open.map((job) => [job.documentId, job.kind, job.open]),
      [[failedId, 'document.send', true]],
    );
    assert.match(open[0]?.reason ?? '', /no certificate nor DGII session/);
    assert.deepEqual((await call('GET', '/api/v1/trabajos-fallidos?open=false')).json<{ data: unknown[] }>().data, []);
  });

  it('stores the session of a seed signed outside, encrypted and never shown, and sends with it', async () => {
    const seedResponse = await call('GET', '/api/v1/dgii/sesion/semilla');
    assert.equal(seedResponse.statusCode, 200, seedResponse.body);
    const seed = seedResponse.json<{ data: { seedXml: string } }>().data.seedXml;
    assert.match(seed, /<SemillaModel/);
    const accepted = await call('POST', '/api/v1/dgii/sesion', { xml: signXml(seed, testSigningKey()) });
    assert.equal(accepted.statusCode, 200, accepted.body);
    const { expiresAt } = accepted.json<{ data: { expiresAt: string } }>().data;
    assert.ok(Date.parse(expiresAt) > Date.now() + 50 * 60_000, expiresAt);
    assert.doesNotMatch(accepted.body, /eyJ/, 'a JWT in the answer');

    const [row] = await world.app.application.database.db
      .selectFrom('dgii_sessions')
      .selectAll()
      .where('company_id', '=', companyId)
      .execute();
    assert.ok(row !== undefined);
    assert.doesNotMatch(row.token_encrypted, /eyJ/, 'the token is stored in the clear');

    const test = (await call('POST', '/api/v1/dgii/prueba-conexion')).json<{ data: ConnectionTest }>().data;
    assert.equal(test.ok, true, JSON.stringify(test));

    // A document signed outside, handed in and sent: DGII accepts it under the company's session.
    const document = signedEcf('31', 2, { rnc, key: testSigningKey() });
    const handedIn = await call('POST', '/api/v1/documentos/xml-firmado', document.xml, {
      'content-type': 'application/xml',
    });
    assert.equal(handedIn.statusCode, 201, handedIn.body);
    const id = handedIn.json<{ data: { id: string } }>().data.id;
    assert.equal((await call('POST', `/api/v1/documentos/${id}/enviar`)).statusCode, 202);
    let status = 'queued';
    for (
      let tries = 0;
      tries < 300 && !['accepted', 'accepted_conditional', 'rejected', 'send_failed'].includes(status);
      tries++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await call('GET', `/api/v1/documentos/${id}`)).json<{ data: { status: string } }>().data.status;
    }
    assert.equal(status, 'accepted');
  });

  it('retries the failed document with the session (reintentar), and its failed job closes', async () => {
    const retried = await call('POST', `/api/v1/documentos/${failedId}/reintentar`);
    assert.equal(retried.statusCode, 202, retried.body);
    let status = 'queued';
    for (let tries = 0; tries < 300 && status !== 'accepted' && status !== 'send_failed'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await call('GET', `/api/v1/documentos/${failedId}`)).json<{ data: { status: string } }>().data.status;
    }
    assert.equal(status, 'accepted');
    assert.deepEqual((await call('GET', '/api/v1/trabajos-fallidos?open=true')).json<{ data: unknown[] }>().data, []);
    const closed = (await call('GET', '/api/v1/trabajos-fallidos?open=false&limit=1')).json<{
      data: { documentId: string; open: boolean; closedBecause: string }[];
      meta: { nextCursor: string | null };
    }>();
    assert.deepEqual(
      closed.data.map((job) => [job.documentId, job.open, job.closedBecause]),
      [[failedId, false, "DGII's verdict: accepted"]],
    );
    assert.equal(closed.meta.nextCursor, null);
  });

  it('tests the connection of a company with a certificate for real: every step, no token', async () => {
    const manager = (await world.app.issueKey(world.companyId, ['certification:manage'])).apiKey;
    const response = await world.app.app.inject({
      method: 'POST',
      url: '/api/v1/dgii/prueba-conexion',
      headers: { 'x-api-key': manager },
    });
    assert.equal(response.statusCode, 200, response.body);
    const report = response.json<{ data: ConnectionTest }>().data;
    assert.deepEqual(
      report.steps.map((step) => [step.step, step.ok]),
      [
        ['credentials', true],
        ['authentication', true],
        ['query', true],
      ],
    );
    assert.equal(report.ok, true);
    assert.ok(report.sessionExpiresAt !== null);
    assert.doesNotMatch(response.body, /eyJ/, 'a JWT in the report');
    // The token the test obtained is kept in the shared cache for the other processes, sealed.
    const cached = await world.app.application.cache.get(`dgii:token:testecf:${world.companyId}`);
    assert.ok(cached !== undefined, 'the token is not in the shared cache');
    assert.doesNotMatch(cached, /eyJ/, 'the token is in the shared cache in the clear');
    // Sending needs documents:send, not certification:manage.
    assertProblem(
      await world.app.app.inject({
        method: 'GET',
        url: '/api/v1/dgii/sesion/semilla',
        headers: { 'x-api-key': manager },
      }),
      403,
      'scope_missing',
    );
  });
});
