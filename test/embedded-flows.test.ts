// The main flows on the embedded back ends (PGlite, in-memory cache), always, whatever servers answer
// locally: PGlite is one session, so a query made outside its transaction would hang there and nowhere else.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { scopes } from '../src/platform/http/scopes.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('main flows on embedded defaults', { timeout: 120_000 }, () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await startTestApp({ embedded: true });
  });
  after(async () => {
    await testApp.close();
  });

  it('runs on PGlite and the memory cache, and is ready', async () => {
    assert.equal(testApp.application.database.kind, 'pglite');
    assert.equal(testApp.application.cache.kind, 'memory');
    assert.equal((await testApp.app.inject({ url: '/ready' })).statusCode, 200);
  });

  it('provisions, installs a certificate, issues, uses, suspends, reinstates and revokes', async () => {
    const companyId = await testApp.provisionCompany();
    const now = Date.now();
    const { p12 } = createSelfSignedP12({
      commonName: 'Embebida SRL',
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 86_400_000),
      password: 'clave',
    });
    const installed = await testApp.sendEvent('certificate.installed', {
      companyId,
      p12Base64: p12.toString('base64'),
      password: 'clave',
    });
    assert.equal(installed.statusCode, 200);
    assert.equal(installed.json<{ data: { outcome: string } }>().data.outcome, 'applied');

    const { apiKey, keyId } = await testApp.issueKey(companyId, [...scopes]);
    const empresa = () => testApp.app.inject({ url: '/api/v1/empresa', headers: { 'x-api-key': apiKey } });
    const first = await empresa();
    assert.equal(first.statusCode, 200);
    assert.equal(first.json<{ data: { company: { id: string; certificate: unknown } } }>().data.company.id, companyId);

    assert.equal((await testApp.sendEvent('company.suspended', { companyId, reason: 'impago' })).statusCode, 200);
    assert.equal((await empresa()).json<{ code: string }>().code, 'company_suspended');
    assert.equal(
      (await testApp.sendEvent('company.permissions_changed', { companyId, permissions: 'current' })).statusCode,
      200,
    );
    assert.equal((await empresa()).statusCode, 200);

    const listed = await testApp.cloud('GET', `/internal/cloud/v1/companies/${companyId}/api-keys`);
    assert.deepEqual(
      listed.json<{ data: { keyId: string }[] }>().data.map((key) => key.keyId),
      [keyId],
    );
    assert.equal(
      (await testApp.cloud('DELETE', `/internal/cloud/v1/companies/${companyId}/api-keys/${keyId}`)).statusCode,
      204,
    );
    assert.equal((await empresa()).json<{ code: string }>().code, 'api_key_revoked');
  });

  it('refuses a replayed event id and keeps one effect', async () => {
    const first = await testApp.sendEvent(
      'company.provisioned',
      { rnc: '131880681', legalName: 'Una SRL', plan: 'pro', capabilities: [] },
      'evt-embedded-1',
    );
    assert.equal(first.statusCode, 200);
    const replay = await testApp.sendEvent(
      'company.provisioned',
      { rnc: '131880681', legalName: 'Una SRL', plan: 'pro', capabilities: [] },
      'evt-embedded-1',
    );
    assert.equal(replay.statusCode, 409);
    assert.equal(replay.json<{ code: string }>().code, 'event_replayed');
    const rows = await testApp.application.database.db
      .selectFrom('companies')
      .select('id')
      .where('rnc', '=', '131880681')
      .execute();
    assert.equal(rows.length, 1);
  });
});
