// The README promise: on a machine with no database or Redis, `npm start` runs the service on embedded
// defaults. This drives `ecf start`, what `npm start` runs once it has built, in a child process, as a user would;
// the build from a fresh clone is test/readme-quick-start.test.ts's (building here as well cost the suite a minute).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from './support/free-port.js';
import { unconfiguredEnv } from './support/unconfigured-env.js';
import { ecfProgram } from './support/worker-process.js';

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const sandboxAdminToken = 'embedded-start-test-admin-token';

function start(dataDir: string, port: number): Started {
  const child = spawn(process.execPath, [...ecfProgram, 'start'], {
    env: unconfiguredEnv({
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      SANDBOX_ADMIN_TOKEN: sandboxAdminToken,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  return { child, output: () => output, exited };
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  started: Started,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (started.child.exitCode !== null)
      throw new Error(`exited (${started.child.exitCode}) before ${what}:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}:\n${started.output()}`);
}

async function stop(started: Started): Promise<number | null> {
  started.child.kill('SIGTERM');
  return started.exited;
}

describe('npm start on embedded defaults', { timeout: 240_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-embedded-'));
  let port: number;
  let first: Started;
  let apiKey: string;

  before(async () => {
    port = await freePort();
    first = start(dataDir, port);
    await waitFor(
      '/ready',
      async () => ((await fetch(`http://127.0.0.1:${port}/ready`)).status === 200 ? true : undefined),
      180_000,
      first,
    );
    await waitFor(
      'demo credentials',
      () => Promise.resolve(existsSync(join(dataDir, 'demo-credentials.json')) ? true : undefined),
      30_000,
      first,
    );
  });

  after(async () => {
    if (first.child.exitCode === null) await stop(first);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports every dependency up on the embedded back ends', async () => {
    const ready = (await (await fetch(`http://127.0.0.1:${port}/ready`)).json()) as {
      status: string;
      checks: Record<string, { status: string }>;
    };
    assert.equal(ready.status, 'ready');
    assert.deepEqual(Object.fromEntries(Object.entries(ready.checks).map(([name, check]) => [name, check.status])), {
      database: 'up',
      queue: 'up',
      cache: 'up',
      storage: 'up',
    });
  });

  it('records demo credentials with mode 0600 and prints the key exactly once', async () => {
    const path = join(dataDir, 'demo-credentials.json');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const credentials = JSON.parse(readFileSync(path, 'utf8')) as {
      apiKey: string;
      companyId: string;
      rnc: string;
      baseUrl: string;
      sandboxUrl: string;
      sandboxAdminToken: string;
    };
    apiKey = credentials.apiKey;
    assert.match(apiKey, /^ecf_test_/);
    assert.equal(credentials.rnc, '999999992');
    assert.equal(credentials.baseUrl, `http://127.0.0.1:${port}`);
    assert.equal(credentials.sandboxUrl, /embedded DGII sandbox at (http:\/\/\S+)/.exec(first.output())?.[1]);
    assert.equal(credentials.sandboxAdminToken, sandboxAdminToken);
    await waitFor(
      'the printed key',
      () => Promise.resolve(first.output().includes(apiKey) ? true : undefined),
      5_000,
      first,
    );
    assert.equal(first.output().split(apiKey).length - 1, 1);
  });

  it('answers /api/v1/empresa with the printed key: the demo company, with a certificate and every scope', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/empresa`, { headers: { 'x-api-key': apiKey } });
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      data: {
        company: { rnc: string; certificate: { notAfter: string } | null };
        environment: string;
        scopes: string[];
      };
    };
    assert.equal(body.data.company.rnc, '999999992');
    assert.notEqual(body.data.company.certificate, null);
    assert.equal(body.data.environment, 'TEST');
    assert.equal(body.data.scopes.length, 10);
  });

  it('runs the DGII sandbox beside it, with the demo company registered there (receiver, certificate delegated, ranges for every type)', async () => {
    const sandboxUrl = /embedded DGII sandbox at (http:\/\/\S+)/.exec(first.output())?.[1];
    assert.ok(sandboxUrl !== undefined, first.output());
    const seed = await fetch(`${sandboxUrl}/testecf/autenticacion/api/autenticacion/semilla`);
    assert.equal(seed.status, 200);
    assert.match(await seed.text(), /<SemillaModel [^>]*>\s*<valor>[A-Za-z0-9+/=]{172}<\/valor>/);
    const company = (await (
      await fetch(`http://127.0.0.1:${port}/api/v1/empresa`, { headers: { 'x-api-key': apiKey } })
    ).json()) as { data: { company: { certificate: { fingerprintSha256: string } } } };
    const registered = await fetch(`${sandboxUrl}/sandbox-admin/taxpayers/999999992`, {
      headers: { authorization: `Bearer ${sandboxAdminToken}` },
    });
    assert.equal(registered.status, 200);
    const taxpayer = (await registered.json()) as {
      electronic: boolean;
      reception_url: string;
      delegatedCertificates: string[];
      ranges: { type: string; environment: string }[];
    };
    assert.equal(taxpayer.electronic, true);
    // In DGII's directory at its receiver here, as this start listens.
    assert.equal(taxpayer.reception_url, `http://127.0.0.1:${port}/testecf/999999992`);
    assert.deepEqual(taxpayer.delegatedCertificates, [company.data.company.certificate.fingerprintSha256]);
    assert.deepEqual(
      taxpayer.ranges.map((range) => `${range.environment}/${range.type}`).sort(),
      ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'].map((type) => `testecf/${type}`),
    );
    assert.equal((await fetch(`${sandboxUrl}/sandbox-admin/taxpayers/999999992`)).status, 401);
  });

  it("keeps the sandbox's mailbox, where the e-mail the service sends is caught (none yet)", async () => {
    const sandboxUrl = /embedded DGII sandbox at (http:\/\/\S+)/.exec(first.output())?.[1];
    const mailbox = await fetch(`${sandboxUrl}/sandbox-admin/mail`, {
      headers: { authorization: `Bearer ${sandboxAdminToken}` },
    });
    assert.equal(mailbox.status, 200);
    assert.deepEqual(await mailbox.json(), []);
  });

  it('gives the demo company an authorised range of every type, with its expiry where the type has one', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/secuencias/rangos`, {
      headers: { 'x-api-key': apiKey },
    });
    assert.equal(response.status, 200);
    const ranges = (
      (await response.json()) as { data: { ecfType: string; from: string; expiresOn: string | null; status: string }[] }
    ).data;
    assert.deepEqual(
      ranges.map((range) => `${range.ecfType}:${range.from}:${range.status}`),
      ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'].map((type) => `${type}:E${type}0000000001:active`),
    );
    assert.deepEqual(
      ranges.filter((range) => range.expiresOn === null).map((range) => range.ecfType),
      ['32', '34'],
    );
  });

  it('refuses a second process on the same data directory with a clear message', async () => {
    const second = start(dataDir, await freePort());
    const code = await second.exited;
    assert.notEqual(code, 0);
    assert.match(second.output(), /already in use by process \d+/);
    const stillServing = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(stillServing.status, 200);
  });

  it('stops cleanly, and a second start reuses the data without printing a new key', async () => {
    assert.equal(await stop(first), 0);
    // The sandbox listens on a free port each start (SANDBOX_PORT=0), so only its URL may change.
    const withoutSandboxUrl = () => {
      const { sandboxUrl, ...rest } = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as {
        sandboxUrl: string;
      };
      assert.match(sandboxUrl, /^http:\/\//);
      return rest;
    };
    const credentialsBefore = withoutSandboxUrl();
    first = start(dataDir, port);
    await waitFor(
      '/ready after restart',
      async () => ((await fetch(`http://127.0.0.1:${port}/ready`)).status === 200 ? true : undefined),
      120_000,
      first,
    );
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/empresa`, { headers: { 'x-api-key': apiKey } });
    assert.equal(response.status, 200);
    assert.deepEqual(withoutSandboxUrl(), credentialsBefore);
    assert.doesNotMatch(first.output(), /ecf_test_/);
  });
});
