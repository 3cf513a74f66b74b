// Issue 42, "the whole DGII model inside one npm start": with the sandbox embedded, every company served here is
// an electronic taxpayer in its registry, listed in DGII's directory at this instance's receiver routes, so an e-CF
// one company issues to another is delivered, through DGII, back here. In-process, through the start's own steps
// (afterListening) and the control plane; the directory is read the way deliveries read it (the DGII client).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { afterListening, demoCredentialsPath, demoRnc, type DemoCredentials } from '../src/demo.js';
import { installTestCertificate } from './support/archive-world.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';

describe('the embedded sandbox lists every company served here at its receiver here', { timeout: 120_000 }, () => {
  let testApp: TestApp;
  let appUrl: string;
  let demo: DemoCredentials;
  const rnc = nextRnc();
  let companyId: string;

  /** DGII's directory entry for an RNC, asked as the demo company, as a delivery asks it. */
  async function directoryEntry(of: string) {
    const outcome = await testApp.application.dgiiClient.directory(demo.companyId, of);
    if (outcome.kind !== 'found') assert.fail(`${of} is not in DGII's directory: ${JSON.stringify(outcome)}`);
    return outcome.entry;
  }

  /** The sandbox's own state, on the app's database. */
  function sandboxDb() {
    const sandbox = testApp.application.dgii.sandbox;
    assert.ok(sandbox !== undefined);
    return sandbox.context.db;
  }

  before(async () => {
    testApp = await startTestApp({ embedded: true, embeddedSandbox: true });
    appUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const started = await afterListening(testApp.application, appUrl);
    assert.ok(started !== undefined);
    demo = started.credentials;
    companyId = await testApp.provisionCompany({ rnc, legalName: 'Segunda Empresa SRL' });
    await installTestCertificate(testApp, companyId, rnc);
  });
  after(async () => {
    await testApp.close();
  });

  it('runs the sandbox in-process as DGII', () => {
    assert.ok(testApp.application.dgii.sandbox !== undefined);
    assert.ok(testApp.application.sandboxRegistration !== undefined);
  });

  it('lists the demo company and a company provisioned later, each at its receiver route here (RNC segment)', async () => {
    for (const [of, name] of [
      [demoRnc, 'Empresa Demostración SRL'],
      [rnc, 'Segunda Empresa SRL'],
    ] as const) {
      const base = `${appUrl}/testecf/${of}`;
      assert.deepEqual(await directoryEntry(of), {
        nombre: name,
        rnc: of,
        urlRecepcion: base,
        urlAceptacion: base,
        urlOpcional: base,
      });
    }
  });

  it("reaches the app: the directory's authentication base answers a seed", async () => {
    const entry = await directoryEntry(rnc);
    const seed = await fetch(`${entry.urlOpcional}/fe/autenticacion/api/semilla`);
    assert.equal(seed.status, 200);
    assert.match(await seed.text(), /<SemillaModel[^>]*>.*<valor>[^<]+<\/valor>/s);
  });

  it("delegates each company's certificate and gives it DGII's test ranges for every type", async () => {
    const db = sandboxDb();
    const company = await testApp.application.services.companies.get(companyId);
    const fingerprint = company?.certificate?.fingerprintSha256;
    assert.ok(fingerprint !== undefined);
    const delegations = db.selectFrom('sandbox_delegations').select('certificate_sha256').where('rnc', '=', rnc);
    assert.deepEqual(await delegations.execute(), [{ certificate_sha256: fingerprint }]);
    const ranges = await db
      .selectFrom('sandbox_ranges')
      .select('type')
      .where('rnc', '=', rnc)
      .where('environment', '=', 'testecf')
      .orderBy('type')
      .execute();
    assert.deepEqual(
      ranges.map((range) => range.type),
      ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'],
    );
  });

  it('follows a receiver segment changed through the control plane', async () => {
    const updated = await testApp.sendEvent('company.updated', { companyId, receiverSegment: 'Segunda-Empresa' });
    assert.equal(updated.statusCode, 200, updated.body);
    const entry = await directoryEntry(rnc);
    assert.equal(entry.urlRecepcion, `${appUrl}/testecf/segunda-empresa`);
    const seed = await fetch(`${entry.urlOpcional}/fe/autenticacion/api/semilla`);
    assert.equal(seed.status, 200);
  });

  it('registers a company that does not receive here without a directory entry (its receiver would answer 404)', async () => {
    const issuing = nextRnc();
    await testApp.provisionCompany({ rnc: issuing, capabilities: ['issuing'] });
    const standing = await sandboxDb()
      .selectFrom('sandbox_taxpayers')
      .select(['electronic', 'reception_url'])
      .where('rnc', '=', issuing)
      .executeTakeFirst();
    assert.deepEqual(standing, { electronic: true, reception_url: null });
    assert.deepEqual(await testApp.application.dgiiClient.directory(demo.companyId, issuing), { kind: 'not_found' });
  });

  it('registers every company again when the instance starts listening (a restart)', async () => {
    await sandboxDb()
      .updateTable('sandbox_taxpayers')
      .set({ reception_url: null, approval_url: null, authentication_url: null })
      .execute();
    const registration = testApp.application.sandboxRegistration;
    assert.ok(registration !== undefined);
    await registration.listening(appUrl);
    assert.equal((await directoryEntry(demoRnc)).urlRecepcion, `${appUrl}/testecf/${demoRnc}`);
    assert.equal((await directoryEntry(rnc)).urlRecepcion, `${appUrl}/testecf/segunda-empresa`);
  });

  it("records the sandbox's URL and admin token in TEST's demo credentials, and they open the mailbox", async () => {
    const stored = JSON.parse(readFileSync(demoCredentialsPath(testApp.dataDir), 'utf8')) as DemoCredentials;
    assert.equal(stored.sandboxUrl, testApp.application.dgii.baseUrl);
    assert.ok(stored.sandboxAdminToken !== undefined);
    assert.equal(stored.sandboxAdminToken, readFileSync(join(testApp.dataDir, 'sandbox-admin-token'), 'utf8').trim());
    const mailbox = await fetch(`${stored.sandboxUrl}/sandbox-admin/mail`, {
      headers: { authorization: `Bearer ${stored.sandboxAdminToken}` },
    });
    assert.equal(mailbox.status, 200);
    assert.deepEqual(await mailbox.json(), []);
    assert.equal((await fetch(`${stored.sandboxUrl}/sandbox-admin/mail`)).status, 401);
  });
});
