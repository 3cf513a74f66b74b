// What reaches the log: correlation ids, and errors with their cause. What never does: API keys, the ops token,
// certificate files, their passwords and private keys, even while a request carrying them fails.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { startLoggedTestApp, type LoggedTestApp } from './support/logged-test-app.js';
import { cloudSecret, opsToken } from './support/test-app.js';

const day = 24 * 60 * 60 * 1_000;
const password = `pw-${randomUUID()}`;
const smtpPassword = `smtp-${randomUUID()}`;
const certificate = createSelfSignedP12({
  commonName: 'Empresa de Prueba SRL',
  notBefore: new Date(Date.now() - day),
  notAfter: new Date(Date.now() + 365 * day),
  password,
});
const p12Base64 = certificate.p12.toString('base64');
const privateKeyBody = certificate.privateKeyPem
  .split('\n')
  .filter((line) => line !== '' && !line.startsWith('-----'))
  .join('');

/** Pieces of a long secret: a log line holding any stretch of it is a leak, not only one holding all of it. */
function slices(secret: string, size = 40): string[] {
  const result: string[] = [];
  for (let start = 0; start + size <= secret.length; start += size) result.push(secret.slice(start, start + size));
  return result;
}

/** Renames a table for the length of `run`, so every query touching it fails like a broken database would. */
async function withTableMissing<T>(testApp: LoggedTestApp, table: string, run: () => Promise<T>): Promise<T> {
  const db = testApp.application.database.db;
  await sql`alter table ${sql.table(table)} rename to ${sql.table(`${table}_hidden`)}`.execute(db);
  try {
    return await run();
  } finally {
    await sql`alter table ${sql.table(`${table}_hidden`)} rename to ${sql.table(table)}`.execute(db);
  }
}

for (const level of ['debug', 'info'] as const) {
  describe(`logs at LOG_LEVEL=${level}`, () => {
    let testApp: LoggedTestApp;
    let apiKey: string;
    let companyId: string;
    const correlation = {
      company: `log-${level}-company`,
      metrics: `log-${level}-metrics`,
      badToken: `log-${level}-bad-token`,
      certificate: `log-${level}-certificate`,
      wrongPassword: `log-${level}-wrong-password`,
      certificateFails: `log-${level}-certificate-fails`,
      keyLookupFails: `log-${level}-key-lookup-fails`,
    };

    before(async () => {
      testApp = await startLoggedTestApp({
        logLevel: level,
        env: { SMTP_URL: `smtp://facturas:${smtpPassword}@127.0.0.1:2525` },
      });
      companyId = await testApp.provisionCompany();
      apiKey = (await testApp.issueKey(companyId, ['documents:read'])).apiKey;

      const company = await testApp.app.inject({
        url: '/api/v1/empresa',
        headers: { 'x-api-key': apiKey, 'x-correlation-id': correlation.company },
      });
      assert.equal(company.statusCode, 200, company.body);

      const metrics = await testApp.app.inject({
        url: '/metrics',
        headers: { authorization: `Bearer ${opsToken}`, 'x-correlation-id': correlation.metrics },
      });
      assert.equal(metrics.statusCode, 200);
      const badToken = await testApp.app.inject({
        url: '/metrics',
        headers: { authorization: `Bearer ${opsToken}-almost`, 'x-correlation-id': correlation.badToken },
      });
      assert.equal(badToken.statusCode, 401);

      const install = (headers: Record<string, string>, pass: string) =>
        testApp.cloud(
          'POST',
          '/internal/cloud/v1/events',
          { type: 'certificate.installed', data: { companyId, p12Base64, password: pass } },
          headers,
        );
      const installed = await install({ 'x-correlation-id': correlation.certificate }, password);
      assert.equal(installed.statusCode, 200, installed.body);
      const wrongPassword = await install({ 'x-correlation-id': correlation.wrongPassword }, `${password}-wrong`);
      assert.equal(wrongPassword.statusCode, 422, wrongPassword.body);

      // Two failures that log, each while a request carries a secret: the certificate store and the key store break.
      const failedInstall = await withTableMissing(testApp, 'company_certificates', () =>
        install({ 'x-correlation-id': correlation.certificateFails }, password),
      );
      assert.equal(failedInstall.statusCode, 500, failedInstall.body);
      const failedLookup = await withTableMissing(testApp, 'api_keys', () =>
        testApp.app.inject({
          url: '/api/v1/empresa',
          headers: { 'x-api-key': apiKey, 'x-correlation-id': correlation.keyLookupFails },
        }),
      );
      assert.equal(failedLookup.statusCode, 500, failedLookup.body);
    });
    after(async () => {
      await testApp.close();
    });

    it('captured the requests (so the absence checks below mean something)', () => {
      const entries = testApp.logs.entries();
      assert.ok(entries.length > 10, `only ${entries.length} log lines`);
      assert.ok(entries.every((entry) => entry.service === 'ecf-service'));
      assert.ok(entries.some((entry) => entry.msg === 'incoming request'));
      assert.ok(entries.some((entry) => entry.msg === 'request completed'));
    });

    it('logs the correlation id of every request', () => {
      for (const id of Object.values(correlation)) {
        assert.ok(
          testApp.logs.entries().some((entry) => entry.correlationId === id),
          `no log line carries correlationId ${id}`,
        );
      }
    });

    it('logs each forced failure as an error with its cause and correlation id', () => {
      for (const id of [correlation.certificateFails, correlation.keyLookupFails]) {
        const failures = testApp.logs.entries().filter((entry) => entry.correlationId === id && entry.level === 50);
        assert.equal(failures.length, 1, `expected one error line for ${id}`);
        const err = failures[0]?.err as { message?: unknown } | undefined;
        assert.match(String(err?.message), /does not exist/);
      }
    });

    it('never logs the API key', () => {
      assert.deepEqual(testApp.logs.linesWith(apiKey), []);
      // Not even its secret part alone.
      assert.deepEqual(testApp.logs.linesWith(apiKey.split('_')[3] ?? apiKey), []);
    });

    it('never logs the ops token, right or wrong', () => {
      assert.deepEqual(testApp.logs.linesWith(opsToken), []);
    });

    it('never logs the cloud signing secret', () => {
      assert.deepEqual(testApp.logs.linesWith(cloudSecret), []);
    });

    it('never logs the certificate password, the .p12 or its private key', () => {
      assert.deepEqual(testApp.logs.linesWith(password), []);
      for (const piece of [...slices(p12Base64), ...slices(privateKeyBody)])
        assert.deepEqual(testApp.logs.linesWith(piece), []);
    });

    it('logs the SMTP server it e-mails through without its password', () => {
      const [mail] = testApp.logs.entries().filter((entry) => entry.smtpUrl !== undefined);
      assert.equal(mail?.smtpUrl, 'smtp://facturas@127.0.0.1:2525');
      assert.deepEqual(testApp.logs.linesWith(smtpPassword), []);
    });

    it('redacts secrets a developer might log by mistake', () => {
      const marker = `redaction-${level}`;
      testApp.application.log.error(
        {
          marker,
          password,
          apiKey,
          token: opsToken,
          event: { data: { p12Base64, password } },
          req: { headers: { 'x-api-key': apiKey, authorization: `Bearer ${opsToken}` } },
        },
        'a careless log call',
      );
      const [line] = testApp.logs.linesWith(marker);
      assert.ok(line !== undefined, 'the careless log line was not written');
      for (const secret of [password, apiKey, opsToken, ...slices(p12Base64)])
        assert.ok(!line.includes(secret), `leaked ${secret.slice(0, 12)}…`);
      assert.match(line, /\[redacted\]/);
    });
  });
}
