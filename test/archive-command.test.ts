// `ecf archive verify` as an operator runs it (issue 31): progress on stderr, a report on stdout naming each
// finding's document and artefact, exit 1 when it found anything and 0 when clean, its findings recorded for the
// route; on the embedded database it says in one line that the service must be stopped.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseConfig, type Config } from '../src/config.js';
import { openDatabase } from '../src/platform/db/database.js';
import { ArchiveArgumentError, runArchiveCommand } from '../src/modules/archive/index.js';
import { postgresAvailable } from './support/backends.js';
import { startArchiveWorld, type ArchiveWorld } from './support/archive-world.js';
import { issuerRnc } from './support/ecf-documents.js';
import { opsToken } from './support/test-app.js';
import { requireTool } from './support/tools.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => err.push(text) } },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}

describe('ecf archive verify', () => {
  let world: ArchiveWorld | undefined;
  let config: Config;
  // The command runs beside the service only on PostgreSQL; without it these tests skip.
  before(async () => {
    if (!(await postgresAvailable())) return;
    const started = await startArchiveWorld(3);
    world = started;
    config = parseConfig({
      NODE_ENV: 'test',
      DATA_DIR: started.app.dataDir,
      DATABASE_URL: started.app.databaseUrl ?? '',
      MASTER_KEY: started.app.config.masterKey?.toString('base64') ?? '',
    });
  });
  after(() => world?.app.close());

  it('reports a clean archive with exit 0, then the damage with exit 1, by document and artefact', async (context) => {
    if (world === undefined) {
      context.skip('needs PostgreSQL');
      return;
    }
    const clean = capture();
    assert.equal(await runArchiveCommand(['verify', '--company', issuerRnc], config, clean.io), 0, clean.stderr());
    assert.match(clean.stdout(), /^Verified 9 artefacts \(\d+ bytes\) and 9 stored objects: no findings/);
    assert.match(clean.stderr(), /archive verify: .*9 artefacts/);

    // The export of the same company: every file with its checksum, checkable offline.
    const zip = join(world.app.dataDir, 'audit.zip');
    const exported = capture();
    const period = ['--from', '2026-01-01', '--to', '2099-12-31'];
    assert.equal(
      await runArchiveCommand(['export', '--company', issuerRnc, ...period, '--out', zip], config, exported.io),
      0,
      exported.stderr(),
    );
    assert.match(exported.stdout(), /^Exported 3 documents, 0 received documents and 0 annulments \(9 files, /);
    assert.match(exported.stderr(), /archive export: /);
    if (requireTool(context, 'unzip', 'sha256sum')) {
      const unpacked = join(world.app.dataDir, 'audit');
      execFileSync('unzip', ['-q', zip, '-d', unpacked]);
      const checked = execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: unpacked, encoding: 'utf8' });
      assert.equal(
        checked
          .trim()
          .split('\n')
          .filter((line) => line.endsWith(': OK')).length,
        11,
        checked,
      );
    }

    const [documentId] = world.documents as [string];
    const signed = await world.app.application.database.db
      .selectFrom('document_artefacts')
      .select('blob_key')
      .where('document_id', '=', documentId)
      .where('kind', '=', 'signed-xml')
      .executeTakeFirstOrThrow();
    unlinkSync(join(world.app.dataDir, 'blobs', ...signed.blob_key.split('/')));

    const damaged = capture();
    const today = new Date().toISOString().slice(0, 10);
    const code = await runArchiveCommand(
      [
        'verify',
        '--company',
        world.companyId,
        '--from',
        '2026-01-01',
        '--to',
        today > '2026-01-01' ? today : '2026-12-31',
      ],
      config,
      damaged.io,
    );
    assert.equal(code, 1);
    const lines = damaged.stdout().trimEnd().split('\n');
    assert.match(lines[0] ?? '', /1 finding\(s\)/);
    assert.deepEqual(lines.slice(1), [
      `missing_blob\tdocument ${documentId}\tsigned-xml\t${signed.blob_key}\tThe store has no object ${signed.blob_key}.`,
    ]);

    // An export refuses to hand over an archive with a hole: exit 1 naming the file, no zip left behind.
    const broken = capture();
    const brokenZip = join(world.app.dataDir, 'broken.zip');
    assert.equal(
      await runArchiveCommand(
        ['export', '--company', world.companyId, ...period, '--out', brokenZip],
        config,
        broken.io,
      ),
      1,
    );
    assert.match(broken.stderr(), /^ecf archive: .*signed-xml\.v1\.xml/);
    assert.equal(existsSync(brokenZip), false);

    // Recorded as the scheduled pass records: the route lists it.
    const listed = await world.app.app.inject({
      method: 'GET',
      url: '/internal/archive/findings?status=open',
      headers: { authorization: `Bearer ${opsToken}` },
    });
    const findings = listed.json<{ data: { findings: { kind: string; owner: { id: string } }[] } }>().data.findings;
    assert.deepEqual(
      findings.map((finding) => [finding.kind, finding.owner.id]),
      [['missing_blob', documentId]],
    );
  });

  it('refuses bad arguments with the usage, and an unknown company in one line', async (context) => {
    if (world === undefined) {
      context.skip('needs PostgreSQL');
      return;
    }
    await assert.rejects(runArchiveCommand(['verify', '--from', '27-11-2026'], config), ArchiveArgumentError);
    await assert.rejects(runArchiveCommand(['check'], config), /usage: ecf archive verify/);
    await assert.rejects(
      runArchiveCommand(['export', '--company', issuerRnc], config),
      /needs --company, --from, --to and --out/,
    );
    const unknown = capture();
    assert.equal(await runArchiveCommand(['verify', '--company', '000000000'], config, unknown.io), 2);
    assert.match(unknown.stderr(), /^ecf archive: no company 000000000/);
  });
});

describe('ecf archive verify on the embedded database', () => {
  it('says in one line that the service holding the data directory must be stopped', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ecf-archive-embedded-'));
    const config = parseConfig({ NODE_ENV: 'test', DATA_DIR: dataDir });
    const running = await openDatabase({ kind: 'pglite', dataDir });
    try {
      const io = capture();
      assert.equal(await runArchiveCommand(['verify'], config, io.io), 2);
      assert.equal(io.stderr().split('\n').filter(Boolean).length, 1);
      assert.match(io.stderr(), /the service is running on .*stop the service and run this again/);
    } finally {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
