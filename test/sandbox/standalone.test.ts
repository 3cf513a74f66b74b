// `ecf sandbox` as an integrator runs it: standalone, its own data directory, state kept across restarts,
// admin routes only when asked for, a bad argument refused in one line.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { officialXsdDir } from '../support/dgii-files.js';
import { ecfProgram } from '../support/worker-process.js';

const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !['DATABASE_URL', 'REDIS_URL', 'NODE_ENV', 'FISCAL_ENV', 'SANDBOX_ADMIN_TOKEN'].includes(name),
  ),
);

function startSandbox(dataDir: string, args: string[]): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...ecfProgram, 'sandbox', '--port', '0', ...args], {
      env: { ...cleanEnv, DATA_DIR: dataDir, ECF_XSD_DIR: officialXsdDir, LOG_LEVEL: 'warn' },
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL within 60 s:\n${output}`));
    }, 60_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /DGII sandbox at (http:\/\/\S+)/.exec(output)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ child, url });
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

describe('ecf sandbox (standalone)', { timeout: 180_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-sandbox-'));
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves DGII seeds, keeps what it was told across a restart, and exposes admin routes only with --admin', async () => {
    const first = await startSandbox(dataDir, ['--admin']);
    const seed = await fetch(`${first.url}/testecf/autenticacion/api/autenticacion/semilla`);
    assert.equal(seed.status, 200);
    assert.match(seed.headers.get('content-type') ?? '', /xml/);
    const registered = await fetch(`${first.url}/sandbox-admin/taxpayers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rnc: '130000006', name: 'EMISOR DE PRUEBA SRL', acceptAnyCertificate: true }),
    });
    assert.equal(registered.status, 201);
    assert.equal(await stop(first.child), 0);

    const second = await startSandbox(dataDir, []);
    assert.equal((await fetch(`${second.url}/sandbox-admin/taxpayers/130000006`)).status, 404);
    assert.equal(await stop(second.child), 0);

    const third = await startSandbox(dataDir, ['--admin']);
    const kept = (await (await fetch(`${third.url}/sandbox-admin/taxpayers/130000006`)).json()) as {
      name: string;
      accept_any_certificate: boolean;
    };
    assert.equal(kept.name, 'EMISOR DE PRUEBA SRL');
    assert.equal(kept.accept_any_certificate, true);
    assert.equal(await stop(third.child), 0);
  });

  it('refuses an unknown argument with one line and exit code 1', () => {
    const result = spawnSync(process.execPath, [...ecfProgram, 'sandbox', '--puerto', '1'], {
      env: { ...cleanEnv, DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.status, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    assert.match(result.stderr, /unexpected argument "--puerto"/);
  });
});
