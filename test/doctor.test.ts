// `ecf doctor` (issue 46) against a PRODUCTION deployment made of real parts: PostgreSQL, Redis, s3rver with Object
// Lock, DGII's XSDs, the DGII sandbox as DGII and the service itself listening at PUBLIC_BASE_URL, with one company
// (certificate delegated at DGII, ranges, receiver). Healthy, the `ecf` command prints one `ok` line per check and
// exits 0; then each check fails alone on a variant that breaks one thing, with its line and exit code.
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { parseConfig } from '../src/config.js';
import { runDoctorCommand } from '../src/doctor/doctor-command.js';
import { formatDgiiDate } from '../src/fiscal/dates.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { upsertTaxpayer } from '../src/sandbox/index.js';
import { postgresAvailable, redisAvailable, testRedisUrl } from './support/backends.js';
import { officialXsdDir } from './support/dgii-files.js';
import { freePort } from './support/free-port.js';
import { startS3rver, type S3rverInstance } from './support/s3rver.js';
import { startSandbox, type RunningSandbox } from './support/sandbox-kit.js';
import { nextRnc, opsToken, startTestApp, type TestApp } from './support/test-app.js';
import { unconfiguredEnv } from './support/unconfigured-env.js';
import { ecfProgram } from './support/worker-process.js';

interface Check {
  check: string;
  company?: string;
  status: 'ok' | 'warning' | 'failure';
  line: string;
}

const dayMs = 86_400_000;
const nextYear = new Date().getUTCFullYear() + 1;

function certificate(notAfter: Date) {
  return createSelfSignedP12({
    commonName: 'EMISOR DEL DOCTOR',
    notBefore: new Date(Date.now() - dayMs),
    notAfter,
    password: 'clave',
  });
}

/** `ecf doctor` as an operator runs it, in a child process (this one serves the parts it checks). */
function ecfDoctor(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [...ecfProgram, 'doctor', ...args], {
      env: unconfiguredEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ecf doctor did not finish within 60 s:\n${stdout}${stderr}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('ecf doctor', { timeout: 300_000 }, () => {
  let s3: S3rverInstance | undefined;
  let sandbox: RunningSandbox | undefined;
  let app: TestApp | undefined;
  let env: Record<string, string>;
  let rnc: string;
  let companyId: string;
  let publicBaseUrl: string;
  const healthyCertificate = certificate(new Date(Date.now() + 400 * dayMs));

  async function install(p12: ReturnType<typeof certificate>, delegated: boolean): Promise<void> {
    assert.ok(app !== undefined && sandbox !== undefined);
    const installed = await app.sendEvent('certificate.installed', {
      companyId,
      p12Base64: p12.p12.toString('base64'),
      password: 'clave',
    });
    assert.equal(installed.statusCode, 200, installed.body);
    const fingerprint = (await app.application.services.companies.get(companyId))?.certificate?.fingerprintSha256;
    assert.ok(fingerprint !== undefined);
    if (delegated)
      await upsertTaxpayer(sandbox.sandbox.context.db, {
        rnc,
        name: 'Empresa del Doctor SRL',
        certificateSha256: [fingerprint],
      });
  }

  /** The doctor in this process with `change` applied to the healthy environment (unset: undefined). */
  async function doctorWith(change: Record<string, string | undefined>) {
    const out: string[] = [];
    const code = await runDoctorCommand(
      ['--json'],
      { stdout: { write: (text: string) => out.push(text) }, stderr: { write: () => true } },
      { readConfig: () => parseConfig({ ...env, ...change }) },
    );
    const report = JSON.parse(out.join('')) as { exitCode: number; checks: Check[] };
    assert.equal(report.exitCode, code);
    const notOk = report.checks
      .filter((check) => check.status !== 'ok')
      .map(
        (check) =>
          `${check.status} ${check.check}${check.company === undefined ? '' : ` ${check.company}`}: ${check.line}`,
      );
    return { code, notOk };
  }

  before(async () => {
    if (!(await postgresAvailable()) || !(await redisAvailable())) return;
    const storage = await startS3rver();
    s3 = storage;
    await storage.client.send(new CreateBucketCommand({ Bucket: 'no-lock' }));
    const dgii = await startSandbox();
    sandbox = dgii;
    const port = await freePort();
    publicBaseUrl = `http://127.0.0.1:${String(port)}`;
    const production = {
      FISCAL_ENV: 'PRODUCTION',
      STORAGE: 's3',
      S3_ENDPOINT: storage.endpoint,
      S3_BUCKET: storage.bucket,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_OBJECT_LOCK_DAYS: '3653',
      ECF_XSD_DIR: officialXsdDir,
      DGII_BASE_URL: dgii.url,
      DGII_FC_BASE_URL: dgii.url,
      DGII_STATUS_BASE_URL: dgii.url,
      DGII_STATUS_API_KEY: 'doctor-status-key',
      PUBLIC_BASE_URL: publicBaseUrl,
    };
    const started = await startTestApp({ env: production });
    app = started;
    await started.app.listen({ port, host: '127.0.0.1' });
    env = {
      ...production,
      DATA_DIR: started.dataDir,
      DATABASE_URL: started.databaseUrl ?? '',
      MASTER_KEY: started.config.masterKey?.toString('base64') ?? '',
      REDIS_URL: testRedisUrl(),
      OPS_TOKEN: opsToken,
    };
    rnc = nextRnc();
    companyId = await started.provisionCompany({ rnc });
    await install(healthyCertificate, true);
    const { apiKey } = await started.issueKey(companyId, ['sequences:manage']);
    for (const [type, expiresOn] of [
      ['31', `31-12-${String(nextYear)}`],
      ['32', undefined],
    ] as const) {
      const range = await started.app.inject({
        method: 'POST',
        url: '/api/v1/secuencias/rangos',
        headers: { 'x-api-key': apiKey },
        payload: {
          ecfType: type,
          from: `E${type}0000000001`,
          to: `E${type}0000100000`,
          ...(expiresOn === undefined ? {} : { expiresOn }),
        },
      });
      assert.equal(range.statusCode, 201, range.body);
    }
    // DGII announces a maintenance window a week ahead.
    const day = formatDgiiDate(new Date(Date.now() + 7 * dayMs));
    const windows = await dgii.admin('PUT', '/settings', {
      maintenanceWindows: [{ ambiente: 'Produccion', horaInicio: '9:00 AM', horaFin: '11:00 AM', dias: [day] }],
    });
    assert.equal(windows.status, 200);
  });
  after(async () => {
    await app?.close();
    await sandbox?.close();
    await s3?.stop();
  });

  it('prints one ok line per check on a healthy deployment and exits 0, with progress on stderr', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const run = await ecfDoctor([], env);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    const day = formatDgiiDate(new Date(Date.now() + 7 * dayMs));
    assert.deepEqual(
      lines.map((line) => /^(\w+)\s+([\w-]+(?: \d+)?):/.exec(line)?.slice(1, 3).join(' ') ?? line),
      [
        'ok configuration',
        'ok database',
        'ok redis',
        'ok storage',
        'ok ops-token',
        'ok xsds',
        'ok master-key',
        'ok dgii-status',
        `ok certificate ${rnc}`,
        `ok dgii-auth ${rnc}`,
        `ok ranges ${rnc}`,
        `ok receiver ${rnc}`,
        '12 ok, 0 warning(s), 0 failure(s)',
      ],
    );
    const expected = [
      'ok      storage: the bucket ecf-archive answers, versioned, with Object Lock: each archived file is locked COMPLIANCE for 3,653 days',
      'ok      master-key: MASTER_KEY matches this database and opens the 1 certificate key(s) sealed with it',
      `ok      dgii-status: DGII's PRODUCTION services are "Disponible"; next maintenance window ${day} 09:00:00 to ${day} 11:00:00 (GMT-4)`,
      `ok      ranges ${rnc}: E31 100,000 left until 31-12-${String(nextYear)}, E32 100,000 left`,
      `ok      receiver ${rnc}: its receiver answers a seed at ${publicBaseUrl}/ecf/${rnc}/fe/autenticacion/api/semilla`,
    ];
    for (const line of expected) assert.ok(lines.includes(line), `${line}\nin:\n${run.stdout}`);
    assert.match(
      run.stdout,
      /^ok {6}dgii-auth \d+: DGII authenticates it in PRODUCTION \(ecf\) \(a session until \d{4}-/m,
    );
    assert.doesNotMatch(run.stdout, /eyJ/, "DGII's token (a JWT) is never printed");
    assert.match(run.stderr, /^ecf doctor: compiling DGII's XSDs…$/m);
    assert.match(run.stderr, new RegExp(`^ecf doctor: authenticating ${rnc} with DGII…$`, 'm'));
  });

  it('fails the database check alone on a database a newer version migrated (exit 2)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const { db } = app.application.database;
    const future = '20991231_9999_from_a_newer_version';
    await sql`insert into kysely_migration (name, timestamp) values (${future}, ${new Date().toISOString()})`.execute(
      db,
    );
    try {
      const { code, notOk } = await doctorWith({});
      assert.equal(code, 2);
      assert.equal(notOk.length, 1, notOk.join('\n'));
      assert.match(
        notOk[0] ?? '',
        new RegExp(
          `^failure database: PostgreSQL at 127\\.0\\.0\\.1:5432/ecf_test_\\w+ was migrated by a newer version of the service \\(${future} unknown here\\): run that version, or restore the database it had$`,
        ),
      );
    } finally {
      await sql`delete from kysely_migration where name = ${future}`.execute(db);
    }
  });

  it('fails the Redis check alone when Redis does not answer (exit 2)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const port = await freePort();
    const { code, notOk } = await doctorWith({ REDIS_URL: `redis://127.0.0.1:${String(port)}` });
    assert.equal(code, 2);
    assert.equal(notOk.length, 1, notOk.join('\n'));
    assert.match(
      notOk[0] ?? '',
      new RegExp(
        `^failure redis: Redis at 127\\.0\\.0\\.1:${String(port)} does not answer \\(.+\\): check REDIS_URL and that Redis runs$`,
      ),
    );
  });

  it('fails the storage check alone on a bucket without Object Lock (exit 2)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const { code, notOk } = await doctorWith({ S3_BUCKET: 'no-lock' });
    assert.equal(code, 2);
    assert.deepEqual(notOk, [
      'failure storage: the bucket no-lock has no Object Lock, so S3 refuses every archive write that asks for S3_OBJECT_LOCK_DAYS=3653: archive into a bucket created with Object Lock enabled',
    ]);
  });

  it('fails the XSD check alone when none are installed (exit 2)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const { code, notOk } = await doctorWith({ ECF_XSD_DIR: undefined });
    assert.equal(code, 2);
    assert.deepEqual(notOk, [
      'failure xsds: no DGII XSDs installed (ECF_XSD_DIR is unset and DATA_DIR/xsd holds none): documents would be checked against the model only; run: ecf xsd install <dir|zip|URL>, or set ECF_XSD_DIR',
    ]);
  });

  it('fails the receiver check alone when the receiver URL does not answer (exit 2)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const elsewhere = `http://127.0.0.1:${String(await freePort())}`;
    const { code, notOk } = await doctorWith({ PUBLIC_BASE_URL: elsewhere });
    assert.equal(code, 2);
    assert.equal(notOk.length, 1, notOk.join('\n'));
    assert.match(
      notOk[0] ?? '',
      new RegExp(
        `^failure receiver ${rnc}: its receiver at ${elsewhere}/ecf/${rnc}/fe/autenticacion/api/semilla does not answer \\(connect ECONNREFUSED [^)]+\\): DGII and issuers cannot deliver to it; `,
      ),
    );
  });

  it('warns of a certificate expiring in 10 days, alone (exit 1)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const expiring = certificate(new Date(Date.now() + 10 * dayMs - 60_000));
    await install(expiring, true);
    try {
      const notAfter = (await app.application.services.companies.get(companyId))?.certificate?.notAfter;
      const { code, notOk } = await doctorWith({});
      assert.equal(code, 1);
      assert.deepEqual(notOk, [
        `warning certificate ${rnc}: its certificate expires in 10 day(s), on ${String(notAfter)}: install its renewal before then`,
      ]);
    } finally {
      await install(healthyCertificate, false);
    }
  });

  it('fails the DGII authentication check alone for a certificate DGII does not know for the company (exit 2)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    await install(certificate(new Date(Date.now() + 400 * dayMs)), false);
    try {
      const { code, notOk } = await doctorWith({});
      assert.equal(code, 2);
      assert.equal(notOk.length, 1, notOk.join('\n'));
      assert.match(
        notOk[0] ?? '',
        new RegExp(
          `^failure dgii-auth ${rnc}: DGII refused its authentication in PRODUCTION \\(ecf\\) \\(unauthorized: .*no está delegado.*\\): check that its certificate is delegated to act for it in DGII's portal$`,
        ),
      );
    } finally {
      await install(healthyCertificate, false);
    }
  });

  it('fails the OPS_TOKEN check alone when it is unset (exit 2)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const { code, notOk } = await doctorWith({ OPS_TOKEN: undefined });
    assert.equal(code, 2);
    assert.deepEqual(notOk, [
      'failure ops-token: OPS_TOKEN is unset: /metrics and the operations routes (/internal/*: DGII health, failed jobs, archive findings) answer 404, so nobody can watch this instance; set OPS_TOKEN to a secret of 16 characters or more',
    ]);
  });

  it('fails the master key check on a key the database was not set up with, and tries no DGII authentication with it (exit 2)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const { code, notOk } = await doctorWith({ MASTER_KEY: Buffer.alloc(32, 3).toString('base64') });
    assert.equal(code, 2);
    assert.deepEqual(notOk, [
      'failure master-key: MASTER_KEY does not match the key this database was set up with; secrets stored with the other key could not be read.',
      `failure dgii-auth ${rnc}: not tried: the master key does not open its certificate key (see master-key)`,
    ]);
  });

  it("warns, alone, that DGII's maintenance windows cannot be seen without DGII_STATUS_API_KEY (exit 1)", async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const { code, notOk } = await doctorWith({ DGII_STATUS_API_KEY: undefined });
    assert.equal(code, 1);
    assert.deepEqual(notOk, [
      "warning dgii-status: DGII_STATUS_API_KEY is unset: the service cannot see DGII's maintenance windows; ask DGII for a status API key and set it",
    ]);
  });

  it('warns, alone, of ranges with no more numbers left than SEQUENCE_LOW_STOCK (exit 1)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const { code, notOk } = await doctorWith({ SEQUENCE_LOW_STOCK: '100000' });
    assert.equal(code, 1);
    assert.deepEqual(notOk, [
      `warning ranges ${rnc}: E31 100,000 left until 31-12-${String(nextYear)}, E32 100,000 left; register the new ranges DGII authorises before these run out (SEQUENCE_LOW_STOCK, SEQUENCE_EXPIRING_DAYS)`,
    ]);
  });

  it('fails on a configuration the service would refuse, naming the setting (exit 2)', async (context) => {
    if (app === undefined) {
      context.skip('needs PostgreSQL and Redis');
      return;
    }
    const { code, notOk } = await doctorWith({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    assert.equal(code, 2);
    assert.deepEqual(notOk, [
      "failure configuration: Invalid configuration: OUTBOUND_ALLOW_PRIVATE cannot be true with FISCAL_ENV=PRODUCTION: webhooks, buyers' receivers and issuers' approval URLs are called at public addresses only; unset it",
    ]);
  });
});
