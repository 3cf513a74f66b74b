// The audit export of the fiscal archive (issue 31). A company populated through the API (documents of three types,
// a received e-CF, an annulment) exports its period to a zip that the real `unzip` opens and `sha256sum -c` verifies,
// every file byte for byte the archived blob, and a manifest (JSON and CSV) that says what the records say; only the
// period's GMT-4 days are in it; a blob that differs from its record or is gone stops the export and leaves no zip.
// Memory stays flat exporting 10,000 documents; the zip writer's Zip64 records open in unzip and yauzl.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import yauzl from 'yauzl';
import { formatDgiiDate } from '../src/fiscal/dates.js';
import { buildEcf } from '../src/fiscal/build/index.js';
import { signCanonicalDocument } from '../src/fiscal/xmldsig/index.js';
import { createZipWriter } from '../src/modules/archive/export-zip.js';
import { ArchiveExportError, exportArchive, type ExportSummary } from '../src/modules/archive/export.js';
import { fixedClock } from '../src/platform/clock.js';
import { insertArchivedDocuments } from './support/archive-documents.js';
import { installTestCertificate } from './support/archive-world.js';
import { buyerRnc, ecfDocuments, issuerRnc, ownedFieldsFor } from './support/ecf-documents.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';
import { requireTool } from './support/tools.js';
import { testSigningKey } from './support/xmldsig-kit.js';

/** Every file under `dir`, as paths relative to it with `/`. */
function filesUnder(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name), root)
      : [relative(root, join(dir, entry.name)).split('\\').join('/')],
  );
}

/** RFC 4180 rows (CRLF line ends, quoted cells) as objects keyed by the header. */
function csvRecords(text: string): Record<string, string>[] {
  const [header = '', ...lines] = text.split('\r\n').filter((line) => line !== '');
  const cells = (line: string) =>
    [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)]
      .slice(0, -1)
      .map(([, cell = '']) => (cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell));
  const names = cells(header);
  return lines.map((line) => Object.fromEntries(cells(line).map((cell, i) => [names[i] ?? `${i}`, cell])));
}

interface ManifestJson {
  format: string;
  company: { id: string; rnc: string; legalName: string };
  period: { from: string; to: string; start: string; end: string };
  documents: { id: string; eNCF: string; ecfType: string; status: string; dgiiEstado: string | null }[];
  received: { id: string; eNCF: string; rncEmisor: string; status: string; receivedAt: string }[];
  annulments: { id: string; status: string; annulled: { ecfType: string; from: string; to: string }[] }[];
  totals: Omit<ExportSummary, 'zipBytes'>;
}

describe('archive export of a company populated through the API', { timeout: 120_000 }, () => {
  const clock = fixedClock(new Date('2026-11-01T03:30:00Z'));
  let app: TestApp;
  let companyId: string;
  let key: string;
  let dir: string;
  const created: Record<string, string> = {}; // e-NCF -> document id

  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload }) });
  const deps = () => ({ db: app.application.database.db, blobs: app.application.blobs });

  /** A document of `type` created at `at`, issued that day. */
  async function createAt(at: string, type: '31' | '32' | '34'): Promise<string> {
    clock.set(new Date(at));
    const body = structuredClone(ecfDocuments[type]) as { Encabezado: { Emisor: Record<string, unknown> } };
    body.Encabezado.Emisor['FechaEmision'] = formatDgiiDate(clock.now());
    const response = await call('POST', '/api/v1/documentos', body);
    assert.equal(response.statusCode, 201, response.body);
    const { id, eNCF } = response.json<{ data: { id: string; eNCF: string } }>().data;
    created[eNCF] = id;
    return eNCF;
  }

  before(async () => {
    app = await startTestApp({ clock, env: { RECEIVER_AUTH_MODE: 'disabled' } });
    companyId = await app.provisionCompany({ rnc: issuerRnc });
    await installTestCertificate(app, companyId, issuerRnc);
    key = (await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage', 'sequences:read']))
      .apiKey;
    for (const [type, last] of [
      ['31', 100],
      ['32', 100],
      ['34', 10],
    ] as const) {
      const range = await call('POST', '/api/v1/secuencias/rangos', {
        ecfType: type,
        from: `E${type}0000000001`,
        to: `E${type}${String(last).padStart(10, '0')}`,
        ...(type === '31' ? { expiresOn: '31-12-2027' } : {}),
      });
      assert.equal(range.statusCode, 201, range.body);
    }

    // The period is November 2026 in GMT-4: 23:30 on 31 October (03:30 UTC on 1 November) is out, midnight in.
    await createAt('2026-11-01T03:30:00Z', '31');
    await createAt('2026-11-01T04:00:00Z', '31');
    await createAt('2026-11-15T14:00:00Z', '32');
    // DGII accepted the first of the month (sending is not this test's concern: the verdict is written as it lands).
    await app.application.database.db
      .updateTable('documents')
      .set({ status: 'accepted', dgii_estado: 'Aceptado', track_id: 'a0b1c2d3-track' })
      .where('id', '=', created['E310000000002'] ?? '')
      .execute();

    clock.set(new Date('2026-11-20T15:00:00Z'));
    const sent = structuredClone(ecfDocuments['31']) as {
      Encabezado: { Emisor: Record<string, unknown>; Comprador: Record<string, unknown> };
    };
    sent.Encabezado.Emisor['RNCEmisor'] = buyerRnc;
    sent.Encabezado.Emisor['FechaEmision'] = '20-11-2026';
    sent.Encabezado.Comprador['RNCComprador'] = issuerRnc;
    const built = buildEcf(sent, { ...ownedFieldsFor('31'), eNCF: 'E310000000777' });
    assert.ok(built.ok, JSON.stringify(built));
    const received = await app.app.inject({
      method: 'POST',
      url: `/testecf/${issuerRnc}/fe/recepcion/api/ecf`,
      payload: signCanonicalDocument(built.xml, testSigningKey()),
      headers: { 'content-type': 'application/xml' },
    });
    assert.equal(received.statusCode, 200, received.body);

    await createAt('2026-11-25T16:00:00Z', '34');
    clock.set(new Date('2026-11-28T12:00:00Z'));
    const annulment = await call('POST', '/api/v1/secuencias/anulaciones', {
      ranges: [{ ecfType: '34', from: 'E340000000002', to: 'E340000000010' }],
    });
    assert.equal(annulment.statusCode, 202, annulment.body);

    // 23:59:59 on 30 November is in; midnight after it is December.
    await createAt('2026-12-01T03:59:59Z', '31');
    await createAt('2026-12-01T04:00:00Z', '31');
    dir = mkdtempSync(join(tmpdir(), 'ecf-archive-export-'));
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let summary: ExportSummary;
  const progress: [number, number][] = [];
  let unzipped: string;

  it('exports the period to a zip that unzip opens and sha256sum -c verifies, each file the archived blob', async (t) => {
    if (!requireTool(t, 'unzip', 'sha256sum')) return;
    const out = join(dir, 'november.zip');
    summary = await exportArchive(deps(), {
      companyId,
      from: '2026-11-01',
      to: '2026-11-30',
      out,
      progress: (done, total) => progress.push([done, total]),
    });
    // Four documents of three artefacts (source JSON and XML, signed XML), a reception's two (the e-CF, the ARECF), an ANECF.
    assert.deepEqual(
      [summary.documents, summary.receivedDocuments, summary.annulments, summary.artefacts],
      [4, 1, 1, 4 * 3 + 2 + 1],
    );
    assert.equal(summary.zipBytes, readFileSync(out).length);
    assert.deepEqual(progress.at(0), [0, 6]);
    assert.deepEqual(progress.at(-1), [6, 6]);
    assert.ok(!existsSync(`${out}.partial`));

    unzipped = join(dir, 'november');
    const unzip = spawnSync('unzip', ['-q', out, '-d', unzipped], { encoding: 'utf8' });
    assert.equal(unzip.status, 0, unzip.stderr);
    const check = spawnSync('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: unzipped, encoding: 'utf8' });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.equal(check.stdout.trim().split('\n').length, summary.artefacts + 2); // and the two manifests

    const listed = csvRecords(readFileSync(join(unzipped, 'manifest.csv'), 'utf8'));
    assert.deepEqual(
      filesUnder(unzipped).sort(),
      [...listed.map((row) => row['path']), 'SHA256SUMS', 'manifest.csv', 'manifest.json'].sort(),
    );
    let bytes = 0;
    for (const row of listed) {
      const archived = await app.application.blobs.get(await blobKeyOf(row));
      const exported = readFileSync(join(unzipped, row['path'] ?? ''));
      assert.ok(archived !== undefined && exported.equals(archived), `${row['path']} differs from its blob`);
      bytes += exported.length;
    }
    assert.equal(bytes, summary.bytes);
  });

  /** The blob key recorded for a manifest row's file. */
  async function blobKeyOf(row: Record<string, string>): Promise<string> {
    const db = app.application.database.db;
    const [id = '', kind = ''] = [row['id'], row['artefact']];
    const version = Number(row['version']);
    if (row['section'] === 'document')
      return (
        await db
          .selectFrom('document_artefacts')
          .select('blob_key')
          .where('document_id', '=', id)
          .where('kind', '=', kind as 'signed-xml')
          .where('version', '=', version)
          .executeTakeFirstOrThrow()
      ).blob_key;
    if (row['section'] === 'received')
      return (
        await db
          .selectFrom('received_artefacts')
          .select('blob_key')
          .where('received_document_id', '=', id)
          .where('kind', '=', kind as 'received-xml')
          .where('version', '=', version)
          .executeTakeFirstOrThrow()
      ).blob_key;
    return (await db.selectFrom('annulments').select('blob_key').where('id', '=', id).executeTakeFirstOrThrow())
      .blob_key;
  }

  it('lists every document, reception and annulment in manifest.json and manifest.csv as the records say', async (t) => {
    if (!requireTool(t, 'unzip', 'sha256sum')) return;
    const db = app.application.database.db;
    const manifest = JSON.parse(readFileSync(join(unzipped, 'manifest.json'), 'utf8')) as ManifestJson;
    assert.equal(manifest.format, 'ecf-archive-export/1');
    assert.deepEqual(manifest.company, { id: companyId, rnc: issuerRnc, legalName: 'Empresa de Prueba SRL' });
    assert.deepEqual(
      [manifest.period.start, manifest.period.end],
      ['2026-11-01T00:00:00-04:00', '2026-12-01T00:00:00-04:00'],
    );
    assert.deepEqual(
      manifest.documents.map((document) => [document.eNCF, document.ecfType, document.status, document.dgiiEstado]),
      [
        ['E310000000002', '31', 'accepted', 'Aceptado'],
        ['E320000000001', '32', 'signed', null],
        ['E340000000001', '34', 'signed', null],
        ['E310000000003', '31', 'signed', null],
      ],
    );
    assert.deepEqual(
      manifest.received.map((reception) => [
        reception.eNCF,
        reception.rncEmisor,
        reception.status,
        reception.receivedAt,
      ]),
      [['E310000000777', buyerRnc, 'received', '2026-11-20T11:00:00-04:00']],
    );
    assert.deepEqual(
      manifest.annulments.map((annulment) => [annulment.status, annulment.annulled]),
      [['pending', [{ ecfType: '34', from: 'E340000000002', to: 'E340000000010' }]]],
    );
    const { zipBytes: _zipBytes, ...totals } = summary;
    assert.deepEqual(manifest.totals, totals);

    // Every CSV row against the rows it came from.
    const rows = csvRecords(readFileSync(join(unzipped, 'manifest.csv'), 'utf8'));
    const documents = await db.selectFrom('documents').selectAll().where('company_id', '=', companyId).execute();
    const artefacts = await db
      .selectFrom('document_artefacts')
      .selectAll()
      .where(
        'document_id',
        'in',
        documents.map((document) => document.id),
      )
      .execute();
    const localTime = (instant: Date) =>
      new Date(instant.getTime() - 4 * 3_600_000).toISOString().slice(0, 19) + '-04:00';
    for (const row of rows.filter((candidate) => candidate['section'] === 'document')) {
      const document = documents.find((candidate) => candidate.id === row['id']);
      const artefact = artefacts.find(
        (candidate) =>
          candidate.document_id === row['id'] &&
          candidate.kind === row['artefact'] &&
          candidate.version === Number(row['version']),
      );
      assert.ok(document !== undefined && artefact !== undefined, JSON.stringify(row));
      assert.deepEqual(row, {
        section: 'document',
        id: document.id,
        encf: document.encf,
        ecf_type: document.ecf_type,
        rnc_emisor: issuerRnc,
        rnc_comprador: document.rnc_comprador ?? '',
        fecha_emision: document.fecha_emision,
        recorded_at: localTime(document.created_at),
        status: document.status,
        dgii_estado: document.dgii_estado ?? '',
        track_id: document.track_id ?? '',
        artefact: artefact.kind,
        version: String(artefact.version),
        size: String(artefact.size),
        sha256: artefact.sha256,
        path: `documents/${document.encf}/${artefact.kind}.v${artefact.version}.${artefact.kind === 'source-json' ? 'json' : 'xml'}`,
      });
    }
    assert.equal(rows.filter((row) => row['section'] === 'document').length, 12);
    const [reception] = await db
      .selectFrom('received_documents')
      .selectAll()
      .where('company_id', '=', companyId)
      .execute();
    const receivedRows = rows.filter((row) => row['section'] === 'received');
    assert.deepEqual(
      receivedRows.map((row) => [row['id'], row['encf'], row['rnc_emisor'], row['fecha_emision'], row['artefact']]),
      [
        [reception?.id, 'E310000000777', buyerRnc, '20-11-2026', 'arecf-xml'],
        [reception?.id, 'E310000000777', buyerRnc, '20-11-2026', 'received-xml'],
      ],
    );
    const receivedArtefacts = await db
      .selectFrom('received_artefacts')
      .selectAll()
      .where('received_document_id', '=', reception?.id ?? '')
      .orderBy('kind')
      .execute();
    assert.deepEqual(
      receivedRows.map((row) => [row['sha256'], Number(row['size'])]),
      receivedArtefacts.map((artefact) => [artefact.sha256, artefact.size]),
    );
    const [annulmentRow] = rows.filter((row) => row['section'] === 'annulment');
    assert.equal(annulmentRow?.['encf'], 'E340000000002..E340000000010');
    assert.equal(annulmentRow['path'], `annulments/${annulmentRow['id']}/anecf.xml`);
  });

  it("keeps to the period's GMT-4 days: 23:30 the day before and midnight after are out", async (t) => {
    if (!requireTool(t, 'unzip', 'sha256sum')) return;
    const day = await exportArchive(deps(), {
      companyId,
      from: '2026-10-31',
      to: '2026-10-31',
      out: join(dir, 'october-31.zip'),
    });
    assert.deepEqual([day.documents, day.receivedDocuments, day.annulments], [1, 0, 0]);
    const november = filesUnder(unzipped).filter((path) => path.startsWith('documents/'));
    assert.ok(!november.some((path) => path.startsWith('documents/E310000000001/')));
    assert.ok(!november.some((path) => path.startsWith('documents/E310000000004/')));
    assert.ok(november.some((path) => path.startsWith('documents/E310000000003/')));
    const december = await exportArchive(deps(), {
      companyId,
      from: '2026-12-01',
      to: '2026-12-31',
      out: join(dir, 'december.zip'),
    });
    assert.deepEqual([december.documents, december.artefacts], [1, 3]);
  });

  it('stops at a blob that differs from its record or is gone, naming the file, and leaves no zip', async () => {
    const config = app.config.storage;
    assert.equal(config.kind, 'fs');
    const artefact = await app.application.database.db
      .selectFrom('document_artefacts')
      .selectAll()
      .where('document_id', '=', created['E320000000001'] ?? '')
      .where('kind', '=', 'signed-xml')
      .executeTakeFirstOrThrow();
    const file = join(config.root, ...artefact.blob_key.split('/'));
    const original = readFileSync(file);
    const out = join(dir, 'refused.zip');
    const attempt = () => exportArchive(deps(), { companyId, from: '2026-11-01', to: '2026-11-30', out });
    chmodSync(file, 0o644);
    try {
      writeFileSync(file, original.toString('utf8').replace('<eNCF>', '<eNCF> '));
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(error instanceof ArchiveExportError);
        assert.equal(error.code, 'artefact_unreadable');
        assert.match(
          error.message,
          /^documents\/E320000000001\/signed-xml\.v1\.xml: .*does not match its recorded SHA-256/,
        );
        return true;
      });
      renameSync(file, `${file}.away`);
      await assert.rejects(attempt(), /documents\/E320000000001\/signed-xml\.v1\.xml: .*is missing/);
      assert.ok(!existsSync(out) && !existsSync(`${out}.partial`));
    } finally {
      if (existsSync(`${file}.away`)) renameSync(`${file}.away`, file);
      writeFileSync(file, original);
    }
  });

  it('refuses a period that is not days written YYYY-MM-DD in order, a company it does not know, two environments', async () => {
    const out = join(dir, 'never.zip');
    for (const [from, to] of [
      ['2026-11-31', '2026-12-01'],
      ['01-11-2026', '2026-11-30'],
      ['2026-11-30', '2026-11-01'],
    ] as const)
      await assert.rejects(exportArchive(deps(), { companyId, from, to, out }), { code: 'invalid_period' });
    await assert.rejects(
      exportArchive(deps(), { companyId: 'cmp_unknown', from: '2026-11-01', to: '2026-11-30', out }),
      { code: 'unknown_company' },
    );
    // A database serves one environment; rows of two would give two documents one path.
    const db = app.application.database.db;
    const moved = created['E310000000002'] ?? '';
    await db.updateTable('documents').set({ environment: 'CERT' }).where('id', '=', moved).execute();
    try {
      await assert.rejects(exportArchive(deps(), { companyId, from: '2026-11-01', to: '2026-11-30', out }), {
        code: 'mixed_environments',
      });
    } finally {
      await db.updateTable('documents').set({ environment: 'TEST' }).where('id', '=', moved).execute();
    }
    assert.ok(!existsSync(out));
  });
});

describe('archive export memory', { timeout: 120_000 }, () => {
  const count = 10_000;
  let app: TestApp;
  let dir: string;

  before(async () => {
    app = await startTestApp();
    dir = mkdtempSync(join(tmpdir(), 'ecf-archive-memory-'));
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`stays flat exporting ${count.toLocaleString('en-US')} documents`, async () => {
    const rnc = nextRnc();
    const companyId = await app.provisionCompany({ rnc });
    const deps = { db: app.application.database.db, blobs: app.application.blobs };
    const start = Date.parse('2026-11-01T04:00:00Z');
    const { bytes } = await insertArchivedDocuments(deps, {
      companyId,
      rnc,
      count,
      sourceJson: false,
      concurrency: 500,
      createdAt: (i) => new Date(start + i * 60_000),
    });

    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // Live memory, not garbage: collected before each sample, from the 1,000th document (the zip, the manifest
    // files, the first pages and blobs are open by then) to the last.
    const live = () => {
      gc();
      const usage = process.memoryUsage();
      return { held: usage.heapUsed + usage.external, rss: usage.rss };
    };
    let baseline: { held: number; rss: number } | undefined;
    let peak = { held: 0, rss: 0 };
    const summary = await exportArchive(deps, {
      companyId,
      from: '2026-11-01',
      to: '2026-11-30',
      out: join(dir, 'big.zip'),
      progress: (done) => {
        if (done % 1_000 !== 0 || done === 0) return;
        const sample = live();
        baseline ??= sample;
        peak = { held: Math.max(peak.held, sample.held), rss: Math.max(peak.rss, sample.rss) };
      },
    });
    assert.equal(summary.documents, count);
    assert.equal(summary.bytes, bytes);
    assert.ok(baseline !== undefined);
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    const growth = { held: peak.held - baseline.held, rss: peak.rss - baseline.rss };
    const what = `exporting ${mb(bytes)} MB: live memory grew ${mb(growth.held)} MB, RSS ${mb(growth.rss)} MB`;
    // Buffering the documents would hold some 80 MB more by the end; the export holds a few entries at a time.
    assert.ok(bytes > 80 * 1024 * 1024, what);
    assert.ok(growth.held < 16 * 1024 * 1024, what);
    assert.ok(growth.rss < 48 * 1024 * 1024, what);
  });
});

describe('the zip writer', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ecf-archive-zip-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** The entry count yauzl reads from the end records, and the first few entries. */
  async function readBack(path: string): Promise<{ count: number; first: Map<string, Buffer> }> {
    const file = await yauzl.openPromise(path, { lazyEntries: true });
    const first = new Map<string, Buffer>();
    for await (const entry of file.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const chunk of await file.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      first.set(entry.fileName, Buffer.concat(chunks));
      if (first.size === 3) break;
    }
    file.close();
    return { count: file.entryCount, first };
  }

  it('writes Zip64 records that unzip and yauzl read, forced on a small zip', async (t) => {
    if (!requireTool(t, 'unzip', 'sha256sum')) return;
    const path = join(dir, 'forced.zip');
    const zip = createZipWriter(path, { workDir: mkdtempSync(join(dir, 'work-')), forceZip64: true });
    const files = new Map([
      ['a/one.xml', Buffer.from('<a>uno</a>'.repeat(500))],
      ['a/two.bin', Buffer.from([0, 1, 2, 255])], // stored: deflating would not make it smaller
      ['ñandú.txt', Buffer.from('')],
    ]);
    for (const [name, bytes] of files) await zip.add(name, bytes, new Date('2026-11-21T14:30:00Z'));
    await zip.close();
    const test = spawnSync('unzip', ['-tq', path], { encoding: 'utf8' });
    assert.equal(test.status, 0, test.stdout + test.stderr);
    const listing = spawnSync('unzip', ['-Z', '-v', path], { encoding: 'utf8' });
    // The end record holds only Zip64's markers (0xFFFF entries, 0xFFFFFFFF offset): these come from its records.
    assert.match(listing.stdout, /central directory contains 3 entries/);
    assert.match(listing.stdout, /is 250 \(00000000000000FAh\)/);
    assert.deepEqual((await readBack(path)).first, files);
  });

  it('passes 65,535 entries with a Zip64 end record', { timeout: 60_000 }, async (t) => {
    if (!requireTool(t, 'unzip', 'sha256sum')) return;
    const path = join(dir, 'many.zip');
    const zip = createZipWriter(path, { workDir: mkdtempSync(join(dir, 'work-')) });
    const entries = 70_000;
    for (let i = 0; i < entries; i++) await zip.add(`f/${i}.txt`, Buffer.from(`file ${i}\n`), new Date(0));
    await zip.close();
    const test = spawnSync('unzip', ['-tq', path], { encoding: 'utf8' });
    assert.equal(test.status, 0, test.stdout + test.stderr);
    assert.match(spawnSync('unzip', ['-Z', '-t', path], { encoding: 'utf8' }).stdout, new RegExp(`^${entries} files`));
    const read = await readBack(path);
    assert.equal(read.count, entries);
    assert.deepEqual(read.first.get('f/0.txt'), Buffer.from('file 0\n'));
  });
});
