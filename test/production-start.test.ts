// A PRODUCTION start refuses what is unsafe (issue 46): PGlite, filesystem blobs, S3 without Object Lock, no DGII
// XSDs, no OPS_TOKEN, private addresses allowed for buyers' receivers and issuers' approval URLs. Each is refused
// alone, with one `ecf:` line naming the setting and what to do, and exit 1, before anything is opened; the same
// configuration made safe starts, a short lock and an override start with their warning logged; TEST starts on
// every one of those settings as before.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './support/backends.js';
import { officialXsdDir } from './support/dgii-files.js';
import { startS3rver, type S3rverInstance } from './support/s3rver.js';
import { unconfiguredEnv } from './support/unconfigured-env.js';
import { ecfProgram } from './support/worker-process.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `ecf <role>` with `env`; when `ready` shows in its output it is stopped with SIGTERM. A start that is refused
 * exits by itself.
 */
function ecf(role: string, env: Record<string, string | undefined>, ready = /ecf-service (listening|running)/) {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [...ecfProgram, role], {
      env: unconfiguredEnv({ LOG_LEVEL: 'info', PORT: '0', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ecf ${role} neither started nor stopped within 60 s:\n${stdout}${stderr}`));
    }, 60_000);
    let stopping = false;
    // Once: a second SIGTERM would find the service's handler gone and kill it mid-shutdown.
    const stopWhenReady = () => {
      if (stopping || !ready.test(stdout)) return;
      stopping = true;
      child.kill('SIGTERM');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      stopWhenReady();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The warnings the start logged (pino JSON lines at level 40), in order, but for the one of every start here. */
function warnings(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((entry) => entry.level === 40 && entry.msg !== 'e-mail delivery is off: SMTP_URL is not set')
    .map((entry) => entry.msg);
}

describe('a PRODUCTION start', { timeout: 240_000 }, () => {
  let s3: S3rverInstance | undefined;
  let database: TestDatabase | undefined;
  let dataDir: string;
  let safe: Record<string, string>;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ecf-production-start-'));
    if (!(await postgresAvailable())) return;
    s3 = await startS3rver();
    database = await createTestDatabase({ migrated: true });
    safe = {
      FISCAL_ENV: 'PRODUCTION',
      DATA_DIR: dataDir,
      DATABASE_URL: database.url ?? '',
      MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
      STORAGE: 's3',
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: s3.bucket,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_OBJECT_LOCK_DAYS: '3653',
      ECF_XSD_DIR: officialXsdDir,
      OPS_TOKEN: 'production-start-ops-token',
    };
  });
  after(async () => {
    await s3?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const refusals: [string, Record<string, string | undefined>, RegExp][] = [
    [
      'the embedded PGlite',
      { DATABASE_URL: undefined },
      /^DATABASE_URL is unset: PRODUCTION does not run on the embedded PGlite .*; set DATABASE_URL to a PostgreSQL database/,
    ],
    [
      'filesystem blobs',
      { STORAGE: 'fs' },
      /^STORAGE=fs: PRODUCTION does not keep its ten-year archive in files .*; set STORAGE=s3 .* S3_OBJECT_LOCK_DAYS=3653 \(on a WORM volume: PRODUCTION_ALLOW=fs-blobs, docs\/operations\.md\)$/,
    ],
    [
      'S3 without Object Lock',
      { S3_OBJECT_LOCK_DAYS: undefined },
      /^S3_OBJECT_LOCK_DAYS is unset: archived files could be deleted or overwritten in the bucket; set S3_OBJECT_LOCK_DAYS=3653 .*PRODUCTION_ALLOW=s3-without-object-lock/,
    ],
    [
      'no DGII XSDs installed',
      { ECF_XSD_DIR: undefined },
      /^no DGII XSDs installed \(ECF_XSD_DIR is unset and DATA_DIR\/xsd holds none\): .*run: ecf xsd install <dir\|zip\|URL>, or set ECF_XSD_DIR$/,
    ],
    [
      'OPS_TOKEN unset',
      { OPS_TOKEN: undefined },
      /^OPS_TOKEN is unset: \/metrics and the operations routes .* answer 404, .*; set OPS_TOKEN to a secret of 16 characters or more$/,
    ],
    [
      "private addresses allowed for buyers' receivers and issuers' approval URLs",
      { OUTBOUND_ALLOW_PRIVATE: 'true' },
      /^Invalid configuration: OUTBOUND_ALLOW_PRIVATE cannot be true with FISCAL_ENV=PRODUCTION: webhooks, buyers' receivers and issuers' approval URLs are called at public addresses only; unset it$/,
    ],
    [
      'an override PRODUCTION_ALLOW does not offer (PGlite has none)',
      { PRODUCTION_ALLOW: 'pglite' },
      /^Invalid configuration: PRODUCTION_ALLOW must be a comma-separated list of fs-blobs, s3-without-object-lock \(got "pglite"\)$/,
    ],
  ];
  for (const [what, change, line] of refusals) {
    it(`refuses ${what} with one line and exit 1, opening nothing`, async (context) => {
      if (database === undefined) {
        context.skip('needs PostgreSQL');
        return;
      }
      const run = await ecf('serve', { ...safe, ...change });
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, '');
      const lines = run.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0] ?? '', /^ecf: /);
      assert.match((lines[0] ?? '').slice('ecf: '.length), line);
      assert.equal(existsSync(join(dataDir, 'pgdata')), false, 'no embedded database made');
    });
  }

  it('names every refusal, one line each, when several settings are unsafe', async (context) => {
    if (database === undefined) {
      context.skip('needs PostgreSQL');
      return;
    }
    const run = await ecf('worker', { ...safe, DATABASE_URL: undefined, STORAGE: 'fs', OPS_TOKEN: undefined });
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(
      run.stderr
        .trimEnd()
        .split('\n')
        .map((line) => /^ecf: (\S+)/.exec(line)?.[1]),
      ['DATABASE_URL', 'STORAGE=fs:', 'OPS_TOKEN'],
    );
  });

  it('starts when every setting is safe, warning of a lock shorter than ten years by how many days', async (context) => {
    if (database === undefined) {
      context.skip('needs PostgreSQL');
      return;
    }
    const run = await ecf('serve', { ...safe, S3_OBJECT_LOCK_DAYS: '365' });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /"msg":"ecf-service listening"/);
    assert.deepEqual(warnings(run.stdout), [
      'S3_OBJECT_LOCK_DAYS=365 locks archived files 3,288 days short of the ten years (3,653 days) they must be kept; set S3_OBJECT_LOCK_DAYS=3653',
    ]);
  });

  it('starts on filesystem blobs only with PRODUCTION_ALLOW=fs-blobs, saying so loudly', async (context) => {
    if (database === undefined) {
      context.skip('needs PostgreSQL');
      return;
    }
    const run = await ecf('serve', { ...safe, STORAGE: 'fs', PRODUCTION_ALLOW: 'fs-blobs' });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const [warning, ...others] = warnings(run.stdout);
    assert.deepEqual(others, []);
    assert.match(
      warning ?? '',
      /^UNSAFE, allowed only by PRODUCTION_ALLOW=fs-blobs: STORAGE=fs: PRODUCTION does not keep/,
    );
  });
});

describe('a TEST start', { timeout: 120_000 }, () => {
  it('starts as before on PGlite, filesystem blobs, no XSDs, no OPS_TOKEN and private addresses, refusing none', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ecf-test-start-'));
    try {
      const run = await ecf('worker', { FISCAL_ENV: 'TEST', DATA_DIR: dataDir, OUTBOUND_ALLOW_PRIVATE: 'true' });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /"msg":"ecf-service running"/);
      assert.equal(run.stderr, '');
      assert.equal(existsSync(join(dataDir, 'pgdata')), true, 'on the embedded PGlite');
      assert.deepEqual(warnings(run.stdout), [
        'no DGII XSDs found (ECF_XSD_DIR unset, none installed under DATA_DIR/xsd); documents are checked against the model only; run: ecf xsd install <dir|zip|URL>',
      ]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
