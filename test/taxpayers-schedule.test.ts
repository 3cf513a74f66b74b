// The scheduled registry import: off unless TAXPAYERS_IMPORT_URL is set; when set, the job runs the same
// import as the command, from that URL, at TAXPAYERS_IMPORT_CRON.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { ConfigError, parseConfig } from '../src/config.js';
import { recurringJobs } from '../src/schedules.js';
import { cachedDirectory, taxpayersJobs, taxpayersModule } from '../src/modules/taxpayers/index.js';
import { createCache } from '../src/platform/cache/index.js';
import { fixedClock } from '../src/platform/clock.js';
import { openDatabase, type DatabaseHandle } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './support/backends.js';
import { listingBytes, listingLine, rncFor, writeZip } from './taxpayers-listing.js';
import type { ModuleTables } from '../src/database.js';

describe('scheduled taxpayer import', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle<ModuleTables>;
  let dir: string;
  const clock = fixedClock(new Date('2026-11-21T12:00:00Z'));

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    await migrateToLatest(handle.db);
    dir = mkdtempSync(join(tmpdir(), 'ecf-taxpayers-job-'));
  });
  after(async () => {
    await handle.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  // The schedule as a scheduler keeps it, bound to the module's job; DGII's directory is not used by the import.
  const scheduleOf = async (env: Record<string, string>) => {
    const directory = cachedDirectory({
      source: () => Promise.reject(new Error('not used by the taxpayer import')),
      cache: await createCache(undefined, clock),
      clock,
      namespace: 'TEST',
    });
    const config = parseConfig(env);
    const parts = taxpayersModule({ config, db: handle.db, clock }, { directory });
    const recurring = recurringJobs(config).find((schedule) => schedule.job === 'taxpayers.import');
    const job = (parts.jobs ?? []).find((candidate) => candidate.name === recurring?.job);
    return recurring === undefined || job === undefined ? undefined : { job, cron: recurring.cron };
  };
  const jobsWith = (options: { taxpayersImportUrl: string | undefined }) =>
    taxpayersJobs({ db: handle.db, clock, importUrl: options.taxpayersImportUrl });

  it('is off by default and scheduled at the configured cron when a URL is configured', async () => {
    const off = parseConfig({});
    assert.deepEqual(off.taxpayersImport, { url: undefined, cron: '30 4 * * *' });
    assert.ok((await scheduleOf({})) === undefined);

    const scheduled = await scheduleOf({
      TAXPAYERS_IMPORT_URL: 'https://dgii.gov.do/app/WebApps/Consultas/RNC/DGII_RNC.zip',
      TAXPAYERS_IMPORT_CRON: '0 5 * * 1-5',
    });
    assert.equal(scheduled?.cron, '0 5 * * 1-5');
  });

  it('refuses a URL that is not http(s) and a malformed cron, naming the variable', () => {
    assert.throws(
      () => parseConfig({ TAXPAYERS_IMPORT_URL: 'ftp://dgii.gov.do/DGII_RNC.zip' }),
      (error: unknown) => error instanceof ConfigError && /TAXPAYERS_IMPORT_URL/.test(error.message),
    );
    for (const cron of ['daily', '61 * * * *', '0 25 * * *'])
      assert.throws(
        () => parseConfig({ TAXPAYERS_IMPORT_CRON: cron }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message ===
            `Invalid configuration: TAXPAYERS_IMPORT_CRON must be a five-field cron expression (got "${cron}")`,
      );
  });

  it('imports from the configured location when the job runs, and does nothing without one', async () => {
    const path = join(dir, 'DGII_RNC.zip');
    writeZip(
      path,
      'DGII_RNC.TXT',
      listingBytes([listingLine({ taxId: rncFor(11100001), legalName: 'PROGRAMADA SRL' })]),
    );
    const context = {
      jobId: 'job-1',
      correlationId: 'schedule:taxpayers.import',
      attempt: 1,
      log: pino({ level: 'silent' }),
    };
    await jobsWith({ taxpayersImportUrl: undefined }).importTaxpayers.handle({}, context);
    assert.equal((await handle.db.selectFrom('taxpayers').selectAll().execute()).length, 0);
    await jobsWith({ taxpayersImportUrl: path }).importTaxpayers.handle({}, context);
    assert.deepEqual(await handle.db.selectFrom('taxpayers').select(['tax_id', 'legal_name']).execute(), [
      { tax_id: rncFor(11100001), legal_name: 'PROGRAMADA SRL' },
    ]);
  });
});
