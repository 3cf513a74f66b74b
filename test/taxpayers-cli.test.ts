// `ecf taxpayers import <file-or-url>` as an operator runs it: against the configured database, a report
// on stdout, progress on stderr (plain lines when not a terminal), exit 1 with one line for a bad source.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './support/backends.js';
import { ecfProgram } from './support/worker-process.js';
import { cedulaFor, listingBytes, listingLine, rncFor, writeZip } from './taxpayers-listing.js';

const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) =>
      !['DATABASE_URL', 'REDIS_URL', 'MASTER_KEY', 'NODE_ENV', 'FISCAL_ENV', 'OPS_TOKEN', 'PORT', 'DATA_DIR'].includes(
        name,
      ),
  ),
);

describe('ecf taxpayers import', { timeout: 180_000 }, () => {
  let dir: string;
  let database: TestDatabase;
  let env: Record<string, string>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ecf-taxpayers-cli-'));
    database = await createTestDatabase();
    // Real PostgreSQL when it answers; the embedded database under DATA_DIR otherwise.
    env =
      database.url === undefined
        ? { DATA_DIR: join(dir, 'data') }
        : { DATABASE_URL: database.url, DATA_DIR: join(dir, 'data') };
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  const ecf = (args: string[]) =>
    spawnSync(process.execPath, [...ecfProgram, ...args], {
      env: { ...cleanEnv, ...env },
      encoding: 'utf8',
      timeout: 90_000,
    });

  it('imports a zipped listing, reporting counts and rejected rows with reasons; a second run updates in place', async () => {
    const path = join(dir, 'DGII_RNC.zip');
    const lines = [
      listingLine({ taxId: rncFor(90900001), legalName: 'FERRETERÍA LA PEÑA SRL' }),
      listingLine({ taxId: cedulaFor(4455667788), legalName: 'ANA MUÑOZ', status: 'SUSPENDIDO' }),
      'ESTA|LINEA|NO SIRVE',
      listingLine({ taxId: rncFor(90900002), legalName: 'OTRA SRL' }),
    ];
    writeZip(path, 'TMP/DGII_RNC.TXT', listingBytes(lines));
    const first = ecf(['taxpayers', 'import', path]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(
      first.stdout,
      /^Imported 3 of 4 rows from .*DGII_RNC\.zip!TMP\/DGII_RNC\.TXT \(3 new, 0 changed, 0 unchanged\)/m,
    );
    assert.match(first.stdout, /^Rejected 1 rows\.$/m);
    assert.match(first.stdout, /^ {2}column_count: 1$/m);
    assert.match(first.stdout, /^ {4}line 3: 3 columns, the layout has 11$/m);
    // Not a terminal: plain lines, no carriage returns or escape codes.
    assert.match(first.stderr, /^taxpayers import: 100%, 4 rows, [\d,]+ rows\/s, in \d+:\d{2}$/m);
    assert.ok(!first.stderr.includes('\r') && !first.stderr.includes('\u001b'), 'no carriage returns or escape codes');

    if (database.url !== undefined) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const result = await client.query<{ tax_id: string; legal_name: string; status: string }>(
        'select tax_id, legal_name, status from taxpayers order by tax_id',
      );
      await client.end();
      assert.deepEqual(
        result.rows,
        [
          { tax_id: cedulaFor(4455667788), legal_name: 'ANA MUÑOZ', status: 'SUSPENDIDO' },
          { tax_id: rncFor(90900001), legal_name: 'FERRETERÍA LA PEÑA SRL', status: 'ACTIVO' },
          { tax_id: rncFor(90900002), legal_name: 'OTRA SRL', status: 'ACTIVO' },
        ].sort((a, b) => a.tax_id.localeCompare(b.tax_id)),
      );
    }

    writeZip(
      path,
      'TMP/DGII_RNC.TXT',
      listingBytes([
        lines[0] ?? '',
        listingLine({ taxId: cedulaFor(4455667788), legalName: 'ANA MUÑOZ', status: 'ACTIVO' }),
        lines[3] ?? '',
      ]),
    );
    const second = ecf(['taxpayers', 'import', path]);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /\(0 new, 1 changed, 2 unchanged\)/);
  });

  it('exits 1 with one line for a missing file or a file that is not the listing, and for a wrong invocation', () => {
    const missing = ecf(['taxpayers', 'import', join(dir, 'nope.zip')]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^ecf: cannot read .*nope\.zip/m);

    const usage = ecf(['taxpayers']);
    assert.equal(usage.status, 1);
    assert.match(usage.stderr, /^ecf: usage: ecf taxpayers import </m);
  });
});
