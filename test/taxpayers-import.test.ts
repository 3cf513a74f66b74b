// The taxpayer registry import (SPEC §4.5): DGII's listing is streamed from a zip (or its bare .TXT / .CSV, or a
// URL), upserted in batches, with bad rows counted by reason and skipped; a re-import updates in place; memory stays
// bounded.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { fixedClock } from '../src/platform/clock.js';
import { openDatabase, type DatabaseHandle } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import {
  createProgress,
  importRegistry,
  RegistryLayoutError,
  RegistrySourceError,
  type ImportReport,
  type ProgressSink,
} from '../src/modules/taxpayers/index.js';
import { createTestDatabase, type TestDatabase } from './support/backends.js';
import { cedulaFor, listingBytes, listingLine, rncFor, streamZip, writeZip } from './taxpayers-listing.js';
import type { ModuleTables } from '../src/database.js';

describe('taxpayer registry import', { timeout: 180_000 }, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle<ModuleTables>;
  let dir: string;
  const clock = fixedClock(new Date('2026-11-21T12:00:00Z'));
  const deps = () => ({ db: handle.db, clock });

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    await migrateToLatest(handle.db);
    dir = mkdtempSync(join(tmpdir(), 'ecf-taxpayers-'));
  });
  after(async () => {
    await handle.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await sql`truncate taxpayers`.execute(handle.db);
  });

  const rows = async () => await handle.db.selectFrom('taxpayers').selectAll().orderBy('tax_id').execute();
  const zipOf = (name: string, lines: (string | Buffer)[]) => {
    const path = join(dir, `${name}.zip`);
    writeZip(path, 'TMP/DGII_RNC.TXT', listingBytes(lines));
    return path;
  };

  it('imports a zipped DGII_RNC.TXT, decoding Windows-1252 names (Ñ, á) and mapping every column', async () => {
    const path = zipOf('basic', [
      listingLine({
        taxId: rncFor(10100001),
        legalName: 'CONSTRUCTORA PEÑA & ASOCIADOS  SRL',
        tradeName: 'PEÑA CONSTRUCCIÓN',
        activity: 'CONSTRUCCIÓN DE EDIFICIOS',
        started: '15/03/2001',
        status: 'ACTIVO',
        regime: 'NORMAL',
      }),
      listingLine({
        taxId: cedulaFor(1234567890),
        legalName: 'MARÍA JOSÉ NÚÑEZ',
        started: '00/00/0000',
        status: 'suspendido',
        regime: 'RST',
      }),
      '',
    ]);
    const report = await importRegistry(deps(), path);
    assert.equal(report.source, `${path}!TMP/DGII_RNC.TXT`);
    assert.equal(report.layout, 'dgii-rnc-txt');
    assert.deepEqual([report.rows, report.imported, report.inserted, report.updated, report.rejected], [2, 2, 2, 0, 0]);
    assert.deepEqual(await rows(), [
      {
        tax_id: rncFor(10100001),
        legal_name: 'CONSTRUCTORA PEÑA & ASOCIADOS SRL',
        trade_name: 'PEÑA CONSTRUCCIÓN',
        economic_activity: 'CONSTRUCCIÓN DE EDIFICIOS',
        started_on: '2001-03-15',
        status: 'ACTIVO',
        payment_regime: 'NORMAL',
        imported_at: new Date('2026-11-21T12:00:00Z'),
      },
      {
        tax_id: cedulaFor(1234567890),
        legal_name: 'MARÍA JOSÉ NÚÑEZ',
        trade_name: null,
        economic_activity: null,
        started_on: null,
        status: 'SUSPENDIDO',
        payment_regime: 'RST',
        imported_at: new Date('2026-11-21T12:00:00Z'),
      },
    ]);
  });

  it('reports malformed rows by reason with line numbers, skips them, and imports the rest', async () => {
    const good = (n: number) => listingLine({ taxId: rncFor(20200000 + n), legalName: `EMPRESA ${n} SRL` });
    const path = zipOf('malformed', [
      good(1),
      listingLine({ taxId: '12345678X', legalName: 'LETRA EN EL RNC SRL' }),
      `${rncFor(20200099)}|SOLO TRES|COLUMNAS`,
      Buffer.from(listingLine({ taxId: rncFor(20200098), legalName: 'PEÑA EN UTF-8 SRL' }), 'utf8'),
      Buffer.concat([
        Buffer.from(`${rncFor(20200097)}|NUL`),
        Buffer.from([0x00]),
        Buffer.from('|||||||01/01/2000|ACTIVO|NORMAL'),
      ]),
      listingLine({ taxId: rncFor(20200096), legalName: '   ' }),
      listingLine({ taxId: rncFor(20200095), legalName: 'SIN ESTADO SRL', status: '' }),
      // 9 digits with a wrong check digit: DGII has issued such numbers, so the row is kept and counted.
      listingLine({
        taxId: `${rncFor(20200094).slice(0, 8)}${(Number(rncFor(20200094)[8]) + 1) % 10}`,
        legalName: 'EXCEPCION DGII SRL',
      }),
      good(2),
      good(3),
    ]);
    const report = await importRegistry(deps(), path);
    assert.equal(report.rows, 10);
    assert.equal(report.imported, 4);
    assert.equal(report.rejected, 6);
    assert.equal(report.checkDigitExceptions, 1);
    const byReason = Object.fromEntries(
      Object.entries(report.rejectedByReason).map(([reason, value]) => [
        reason,
        value.examples.map((example) => example.line),
      ]),
    );
    assert.deepEqual(byReason, {
      bad_rnc: [2],
      column_count: [3],
      bad_encoding: [4, 5],
      missing_name: [6],
      missing_status: [7],
    });
    assert.match(report.rejectedByReason.bad_rnc?.examples.at(0)?.detail ?? '', /12345678X/);
    assert.match(report.rejectedByReason.bad_encoding?.examples.at(0)?.detail ?? '', /UTF-8/);
    assert.match(report.rejectedByReason.bad_encoding?.examples.at(1)?.detail ?? '', /0x00/);
    assert.deepEqual((await rows()).map((row) => row.legal_name).sort(), [
      'EMPRESA 1 SRL',
      'EMPRESA 2 SRL',
      'EMPRESA 3 SRL',
      'EXCEPCION DGII SRL',
    ]);
  });

  it('reads the Windows-1252 characters ISO-8859-1 lacks, and refuses bytes Windows-1252 leaves undefined', async () => {
    const quoted = Buffer.concat([
      Buffer.from(`${rncFor(10100002)}|CAFE `, 'latin1'),
      Buffer.from([0x91]),
      Buffer.from('LA ESQUINA', 'latin1'),
      Buffer.from([0x92]),
      Buffer.from(' SRL||||||||ACTIVO|NORMAL', 'latin1'),
    ]);
    const undefinedByte = Buffer.concat([
      Buffer.from(`${rncFor(10100003)}|MAL`, 'latin1'),
      Buffer.from([0x81]),
      Buffer.from(' SRL||||||||ACTIVO|NORMAL', 'latin1'),
    ]);
    const report = await importRegistry(
      deps(),
      zipOf('cp1252', [quoted, undefinedByte, listingLine({ taxId: rncFor(10100004), legalName: 'BIEN SRL' })]),
    );
    assert.deepEqual([report.inserted, report.rejectedByReason.bad_encoding?.count], [2, 1]);
    assert.equal(
      (await rows()).find((row) => row.tax_id === rncFor(10100002))?.legal_name,
      'CAFE \u2018LA ESQUINA\u2019 SRL',
    );
  });

  it('stops on a file without line breaks instead of buffering it', async () => {
    await assert.rejects(importRegistry(deps(), zipOf('one-line', ['X'.repeat(200_000)])), /longer than 65536 bytes/);
  });

  it('keeps only a few examples per reason while counting them all', async () => {
    const lines = [
      ...Array.from({ length: 40 }, (_, i) => listingLine({ taxId: rncFor(30300000 + i), legalName: `OK ${i}` })),
      ...Array.from({ length: 12 }, () => 'A|B'),
    ];
    const report = await importRegistry(deps(), zipOf('many-bad', lines), { examples: 3 });
    assert.equal(report.rejectedByReason.column_count?.count, 12);
    assert.deepEqual(
      report.rejectedByReason.column_count.examples.map((example) => example.line),
      [41, 42, 43],
    );
  });

  it('updates on re-import instead of duplicating: a changed status is written, unchanged rows are left alone', async () => {
    const first = Array.from({ length: 5 }, (_, i) => ({
      taxId: rncFor(40400000 + i),
      legalName: `COMERCIAL ${i} SRL`,
    }));
    await importRegistry(
      deps(),
      zipOf(
        'day1',
        first.map((row) => listingLine(row)),
      ),
    );
    clock.advance(86_400_000);
    const second = [
      ...first.slice(0, 4),
      { ...first[4]!, status: 'SUSPENDIDO' },
      { taxId: rncFor(40400009), legalName: 'NUEVA SRL' },
    ];
    const report = await importRegistry(
      deps(),
      zipOf(
        'day2',
        second.map((row) => listingLine(row)),
      ),
    );
    assert.deepEqual([report.inserted, report.updated, report.unchanged, report.imported], [1, 1, 4, 6]);
    const all = await rows();
    assert.equal(all.length, 6);
    const changed = all.find((row) => row.tax_id === rncFor(40400004));
    assert.equal(changed?.status, 'SUSPENDIDO');
    assert.deepEqual(changed.imported_at, clock.now());
    assert.deepEqual(
      all.find((row) => row.tax_id === rncFor(40400000))?.imported_at,
      new Date(clock.now().getTime() - 86_400_000),
    );
  });

  it('keeps the later of two rows for one number in the same file (and batch)', async () => {
    const taxId = rncFor(50500000);
    const report = await importRegistry(
      deps(),
      zipOf('dupes', [
        listingLine({ taxId, legalName: 'VIEJO NOMBRE SRL' }),
        listingLine({ taxId, legalName: 'NUEVO NOMBRE SRL' }),
      ]),
    );
    assert.deepEqual([report.duplicates, report.inserted], [1, 1]);
    assert.equal((await rows())[0]?.legal_name, 'NUEVO NOMBRE SRL');
  });

  it('reads a bare .TXT with a UTF-8 byte-order mark, and the RNC_CONTRIBUYENTES CSV layout', async () => {
    const txt = join(dir, 'DGII_RNC.TXT');
    writeFileSync(
      txt,
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        listingBytes([listingLine({ taxId: rncFor(60600000), legalName: 'CON BOM SRL' })]),
      ]),
    );
    const fromTxt = await importRegistry(deps(), txt);
    assert.deepEqual([fromTxt.source, fromTxt.inserted, fromTxt.rejected], [txt, 1, 0]);

    const csv = listingBytes([
      '"RNC","RAZÓN SOCIAL","ACTIVIDAD ECONÓMICA","FECHA DE INICIO OPERACIONES","ESTADO","RÉGIMEN DE PAGO"',
      `"${rncFor(60600001)}","LA ""ESQUINA"", PEÑA SRL","VENTA AL POR MENOR","02/01/2009","ACTIVO","NORMAL"`,
    ]);
    const path = join(dir, 'contribuyentes.zip');
    writeZip(path, 'RNC_Contribuyentes_Actualizado_19_Nov_2026.csv', csv);
    const fromCsv = await importRegistry(deps(), path);
    assert.deepEqual([fromCsv.layout, fromCsv.rows, fromCsv.inserted], ['rnc-contribuyentes-csv', 1, 1]);
    const row = (await rows()).find((candidate) => candidate.tax_id === rncFor(60600001));
    assert.deepEqual(
      [row?.legal_name, row?.economic_activity, row?.started_on, row?.trade_name],
      ['LA "ESQUINA", PEÑA SRL', 'VENTA AL POR MENOR', '2009-01-02', null],
    );
  });

  it('refuses a file that is mostly not the listing, writing nothing; and an unreadable source', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `${rncFor(70700000 + i)};OTRO;FORMATO`);
    await assert.rejects(importRegistry(deps(), zipOf('other-layout', lines)), RegistryLayoutError);
    assert.equal((await rows()).length, 0);
    await assert.rejects(importRegistry(deps(), join(dir, 'missing.zip')), RegistrySourceError);
    const emptyZip = join(dir, 'nolisting.zip');
    writeZip(emptyZip, 'LEEME.PDF', Buffer.from('x'));
    await assert.rejects(importRegistry(deps(), emptyZip), /holds no \.TXT or \.CSV/);
  });

  it('downloads from a URL, resuming a download the server cut short', async () => {
    const path = zipOf(
      'remote',
      Array.from({ length: 300 }, (_, i) =>
        listingLine({ taxId: rncFor(80800000 + i), legalName: `REMOTA ${i} SRL`, activity: 'X'.repeat(200) }),
      ),
    );
    const body = readFileSync(path);
    const ranges: string[] = [];
    const server: Server = createServer((request, response) => {
      const range = request.headers.range;
      if (range === undefined) {
        // The first answer announces the whole file and stops halfway, as DGII's CDN does.
        response.writeHead(200, { 'content-type': 'application/zip', 'content-length': body.length });
        response.write(body.subarray(0, Math.floor(body.length / 2)), () =>
          setTimeout(() => response.socket?.end(), 100),
        );
        return;
      }
      ranges.push(range);
      const start = Number(/bytes=(\d+)-/.exec(range)?.[1]);
      response.writeHead(206, {
        'content-length': body.length - start,
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
      });
      response.end(body.subarray(start));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address() as { port: number };
      const report = await importRegistry(deps(), `http://127.0.0.1:${address.port}/DGII_RNC.zip`);
      assert.equal(report.inserted, 300);
      assert.equal(ranges.length, 1);
      assert.match(ranges[0] ?? '', /^bytes=\d+-$/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('imports 200,000 rows from a zip with bounded memory (the file is never held whole)', async () => {
    const total = 200_000;
    const activity = 'ACTIVIDADES DE CONSULTORÍA Y SERVICIOS PROFESIONALES DIVERSOS '.repeat(4);
    function* chunks() {
      for (let start = 0; start < total; start += 5_000) {
        const lines: string[] = [];
        for (let i = start; i < start + 5_000; i++)
          lines.push(
            listingLine({
              taxId: rncFor(10_000_000 + i),
              legalName: `EMPRESA NÚMERO ${i} DE PRUEBA, S.R.L.`,
              tradeName: `COMERCIAL ${i}`,
              activity,
            }),
          );
        yield listingBytes(lines);
      }
    }
    const path = join(dir, 'big.zip');
    const { size } = await streamZip(path, 'DGII_RNC.TXT', chunks());
    assert.ok(size > 64 * 1024 * 1024, `the listing is larger than the bound (${size} bytes)`);

    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const baseline = process.memoryUsage().heapUsed;
    // Live memory, not garbage: collect before each sample, so what is measured is what the import holds on to.
    let peak = baseline;
    let samples = 0;
    let updates = 0;
    const sample = () => {
      gc();
      samples++;
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    };
    const sampler: ProgressSink = {
      update() {
        if (++updates % 100 === 0) sample();
      },
      finish: sample,
    };
    const report: ImportReport = await importRegistry(deps(), path, { progress: sampler });
    assert.deepEqual([report.rows, report.inserted, report.rejected], [total, total, 0]);
    const count = await handle.db
      .selectFrom('taxpayers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(count.n, total);
    assert.ok(samples >= 10, `sampled ${samples} times`);
    const growthMb = (peak - baseline) / 1024 / 1024;
    assert.ok(
      growthMb < 32,
      `heap grew ${growthMb.toFixed(1)} MB importing a ${(size / 1024 / 1024).toFixed(0)} MB listing`,
    );
  });
});

describe('import progress', () => {
  it('redraws a bar with rows/s and ETA on a terminal, at most every interval', () => {
    let t = 0;
    const out: string[] = [];
    const progress = createProgress({
      write: (text) => out.push(text),
      tty: true,
      now: () => t,
      intervalMs: 100,
      width: 10,
    });
    t = 1_000;
    progress.update({ rows: 50_000, bytes: 25, totalBytes: 100 });
    t = 1_050;
    progress.update({ rows: 51_000, bytes: 26, totalBytes: 100 });
    t = 4_000;
    progress.finish({ rows: 200_000, bytes: 100, totalBytes: 100 });
    assert.deepEqual(out, [
      '\r\x1b[K[###-------]  25%  50,000 rows  50,000 rows/s  ETA 0:03',
      '\r\x1b[K[##########] 100%  200,000 rows  50,000 rows/s  in 0:04\n',
    ]);
  });

  it('prints plain lines without control characters when not on a terminal', () => {
    let t = 0;
    const out: string[] = [];
    const progress = createProgress({ write: (text) => out.push(text), tty: false, now: () => t, intervalMs: 5_000 });
    t = 1_000;
    progress.update({ rows: 10_000, bytes: 10, totalBytes: 100 });
    t = 6_000;
    progress.update({ rows: 60_000, bytes: 50, totalBytes: 100 });
    t = 12_000;
    progress.finish({ rows: 120_000, bytes: 100, totalBytes: 100 });
    assert.deepEqual(out, [
      'taxpayers import: 50%, 60,000 rows, 10,000 rows/s, ETA 0:06\n',
      'taxpayers import: 100%, 120,000 rows, 10,000 rows/s, in 0:12\n',
    ]);
  });
});
