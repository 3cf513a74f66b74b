// A backup is only as good as its restore (issue 31): a `pg_dump` of a populated database and a copy of its blobs,
// restored into a fresh database and directory, verify clean with `ecf archive verify`, count the same artefacts
// and serve the same signed bytes. The same restore without the blobs reports every one missing, so the check is
// not vacuous. Needs a PostgreSQL server and its client tools; skipped on a PGlite-only machine.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApplication } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { runArchiveCommand } from '../src/modules/archive/archive.command.js';
import { startArchiveWorld } from './support/archive-world.js';
import { postgresAvailable } from './support/backends.js';
import { cloudSecret, opsToken, type TestApp } from './support/test-app.js';
import { skipUnlessTools } from './support/tools.js';

const run = promisify(execFile);
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const unavailable = !(await postgresAvailable())
  ? 'needs a PostgreSQL server (tests run on PGlite here)'
  : skipUnlessTools('pg_dump', 'pg_restore');

function urlOf(database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Captures what `ecf archive verify` writes. */
function capture() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: { write: (text: string) => (out.stdout += text) },
      stderr: { write: (text: string) => (out.stderr += text) },
    },
  };
}

describe('archive restore', { skip: unavailable }, () => {
  let app: TestApp;
  let key: string;
  let signedXml: Buffer;
  let documentId: string;
  let originalArtefacts: number;
  const created: string[] = [];
  const directories: string[] = [];
  const dumpDir = mkdtempSync(join(tmpdir(), 'ecf-dump-'));
  const dumpFile = join(dumpDir, 'ecf.dump');

  /** A fresh database with the dump restored into it. */
  async function restoredDatabase(): Promise<string> {
    const name = `ecf_restore_${randomBytes(6).toString('hex')}`;
    await admin(`create database ${name}`);
    created.push(name);
    await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', urlOf(name), dumpFile]);
    return urlOf(name);
  }

  function configFor(databaseUrl: string, dataDir: string) {
    return parseConfig({
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      OPS_TOKEN: opsToken,
      CLOUD_SIGNING_SECRET: cloudSecret,
      MASTER_KEY: (app.config.masterKey ?? assert.fail('the test app has a master key')).toString('base64'),
    });
  }

  before(async () => {
    const world = await startArchiveWorld(4);
    ({ app, apiKey: key } = world);
    documentId = world.documents.at(-1) ?? assert.fail('four documents');
    const annulment = await app.app.inject({
      method: 'POST',
      url: '/api/v1/secuencias/anulaciones',
      headers: { 'x-api-key': key },
      payload: { ranges: [{ ecfType: '31', from: 'E310000000005', to: 'E310000001000' }] },
    });
    assert.equal(annulment.statusCode, 202, annulment.body);
    const signed = await app.app.inject({
      method: 'GET',
      url: `/api/v1/documentos/${documentId}/artefactos/signed-xml`,
      headers: { 'x-api-key': key },
    });
    assert.equal(signed.statusCode, 200, signed.body);
    signedXml = signed.rawPayload;
  });

  after(async () => {
    await app.close();
    for (const name of created) await admin(`drop database if exists ${name} with (force)`);
    for (const directory of [dumpDir, ...directories]) rmSync(directory, { recursive: true, force: true });
  });

  it('verifies clean, dumps, and restores database and blobs into a clean archive serving the same bytes', async () => {
    const original = await app.application.services.archive.runPass({});
    assert.deepEqual(original.failing, []);
    originalArtefacts = original.pass.artefacts;
    assert.equal(originalArtefacts, 4 * 3 + 1, 'three artefacts of each of four documents and an ANECF');

    // Database first, then blobs: a blob written between the two is an orphan, never a record without its bytes.
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(
      app.application.database.db,
    );
    const source = urlOf(rows[0]?.name ?? assert.fail('no database name'));
    await run('pg_dump', ['--format=custom', '--no-owner', '--file', dumpFile, source]);
    const dataDir = mkdtempSync(join(tmpdir(), 'ecf-restored-'));
    directories.push(dataDir);
    cpSync(join(app.dataDir, 'blobs'), join(dataDir, 'blobs'), { recursive: true });
    const config = configFor(await restoredDatabase(), dataDir);

    const { out, io } = capture();
    const code = await runArchiveCommand(['verify'], config, io);
    assert.equal(code, 0, `${out.stdout}\n${out.stderr}`);
    assert.match(out.stdout, new RegExp(`^Verified ${String(originalArtefacts)} artefacts .*: no findings`));

    const restored = await buildApplication({ config, roles: { http: true, work: false, schedule: false } });
    try {
      const http = restored.http ?? assert.fail('no HTTP role');
      const signed = await http.app.inject({
        method: 'GET',
        url: `/api/v1/documentos/${documentId}/artefactos/signed-xml`,
        headers: { 'x-api-key': key },
      });
      assert.equal(signed.statusCode, 200, signed.body);
      assert.ok(signed.rawPayload.equals(signedXml), 'the restored archive serves the same signed bytes');
    } finally {
      await restored.close();
    }
  });

  it('reports every artefact missing when the blobs were not restored', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ecf-restored-'));
    directories.push(dataDir);
    const config = configFor(await restoredDatabase(), dataDir);
    const { out, io } = capture();
    const code = await runArchiveCommand(['verify'], config, io);
    assert.equal(code, 1, out.stdout);
    const kinds = out.stdout
      .split('\n')
      .slice(1)
      .filter((line) => line !== '')
      .map((line) => line.split('\t')[0]);
    assert.equal(kinds.length, originalArtefacts, out.stdout);
    assert.ok(
      kinds.every((kind) => kind === 'missing_blob'),
      out.stdout,
    );
  });
});
