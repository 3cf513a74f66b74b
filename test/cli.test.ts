// The `ecf` command as an operator runs it: each role starts and stops cleanly, migrate is repeatable, and
// bad configuration stops it with one line naming the variable.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from './support/backends.js';
import { ecfProgram } from './support/worker-process.js';

const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) =>
      !['DATABASE_URL', 'REDIS_URL', 'MASTER_KEY', 'NODE_ENV', 'FISCAL_ENV', 'OPS_TOKEN', 'PORT'].includes(name),
  ),
);

function ecf(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [...ecfProgram, ...args], {
    env: { ...cleanEnv, LOG_LEVEL: 'info', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** Starts a long-running role, waits for `ready` in its output, stops it with SIGTERM; returns code and output.
 * `terminal`: run under `script`, which gives it a pseudo-terminal as a developer's shell would. */
function runRole(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  terminal = false,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, ...ecfProgram, ...args];
    const [file, ...argv] = terminal ? ['script', '-qec', command.join(' '), '/dev/null'] : command;
    const child = spawn(file ?? '', argv, { env: { ...cleanEnv, LOG_LEVEL: 'info', ...env } });
    let output = '';
    let signalled = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "${String(ready)}" within 60 s:\n${output}`));
    }, 60_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (!signalled && ready.test(output)) {
        signalled = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('ecf command', { timeout: 240_000 }, () => {
  let dataDir: string;
  let database: TestDatabase;
  let masterKey: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ecf-cli-'));
    database = await createTestDatabase();
    masterKey = Buffer.alloc(32, 7).toString('base64');
  });
  after(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  });

  it('prints its usage for help, and refuses an unknown command with exit code 2', () => {
    const help = ecf(['help'], {});
    assert.equal(help.status, 0);
    assert.match(help.stdout, /start\s+API, worker and scheduler/);
    const unknown = ecf(['launch'], {});
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /Unknown command "launch"/);
  });

  it('migrates the embedded database, and a second run finds nothing to do', () => {
    const first = ecf(['migrate'], { DATA_DIR: dataDir });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /Applied: 20261121_0001_foundation/);
    const second = ecf(['migrate'], { DATA_DIR: dataDir });
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /Database is up to date/);
  });

  const badConfigurations: [string, Record<string, string>, RegExp][] = [
    ['a port that is not a number', { PORT: 'abc' }, /PORT must be a whole number/],
    ['an unknown fiscal environment', { FISCAL_ENV: 'DEV' }, /FISCAL_ENV must be one of TEST, CERT, PRODUCTION/],
    ['production without a master key', { NODE_ENV: 'production' }, /MASTER_KEY is required in production/],
    [
      'PRODUCTION fiscal environment without a master key',
      { FISCAL_ENV: 'PRODUCTION' },
      /MASTER_KEY is required in production/,
    ],
  ];
  for (const [name, env, message] of badConfigurations) {
    it(`stops with one line naming the variable for ${name}`, () => {
      const result = ecf(['serve'], { DATA_DIR: dataDir, ...env });
      assert.equal(result.status, 1);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    });
  }

  for (const [role, ready] of [
    ['worker', /"msg":"ecf-service running"/],
    ['scheduler', /"msg":"ecf-service running"/],
    ['serve', /"msg":"ecf-service listening"/],
  ] as const) {
    it(`runs the ${role} role alone on the configured database and stops cleanly on SIGTERM`, async () => {
      const env: Record<string, string> = { DATA_DIR: dataDir, MASTER_KEY: masterKey, PORT: '0' };
      if (database.url !== undefined) env.DATABASE_URL = database.url;
      const { code, output } = await runRole([role], env, ready);
      assert.equal(code, 0, output);
      assert.match(output, /"msg":"shutting down"/);
      if (role === 'serve') assert.doesNotMatch(output, /Demo company/, 'serve never provisions the demo');
    });
  }

  it('logs one human-readable line per entry on a terminal in development', async () => {
    const env: Record<string, string> = { DATA_DIR: dataDir, MASTER_KEY: masterKey, PORT: '0' };
    if (database.url !== undefined) env.DATABASE_URL = database.url;
    const { output } = await runRole(['worker'], env, /ecf-service running/, true);
    // eslint-disable-next-line no-control-regex -- the terminal's colour codes
    const text = output.replace(/\x1b\[[0-9;]*m/g, '');
    assert.match(text, /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: ecf-service running/m, text);
    assert.doesNotMatch(text, /"msg":/, 'no JSON line on a terminal');
  });

  it('refuses, in one line, to start an instance of another fiscal environment on a database that serves TEST, and a master key the data was not sealed with', async () => {
    const env: Record<string, string> = { DATA_DIR: dataDir, MASTER_KEY: masterKey, PORT: '0' };
    if (database.url !== undefined) env.DATABASE_URL = database.url;
    const first = await runRole(['worker'], env, /"msg":"ecf-service running"/);
    assert.equal(first.code, 0, first.output);
    const cert = ecf(['worker'], { ...env, FISCAL_ENV: 'CERT' });
    assert.equal(cert.status, 1, cert.stderr);
    assert.match(
      cert.stderr,
      /^ecf: This database serves FISCAL_ENV=TEST; this instance is FISCAL_ENV=CERT\. Use one database/,
    );
    assert.doesNotMatch(cert.stderr, /\n\s+at /, 'no stack trace');
    const otherKey = ecf(['worker'], { ...env, MASTER_KEY: Buffer.alloc(32, 8).toString('base64') });
    assert.equal(otherKey.status, 1, otherKey.stderr);
    assert.match(otherKey.stderr, /^ecf: MASTER_KEY does not match the key this database was set up with/);
    assert.doesNotMatch(otherKey.stderr, /\n\s+at /, 'no stack trace');
  });
});
