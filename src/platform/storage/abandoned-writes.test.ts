// Abandoned writes are often abandoned because the database went away: their keys wait in memory and are recorded
// once it answers again, without anyone asking.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../../../test/support/backends.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { until } from '../../../test/support/until.js';
import { systemClock } from '../clock.js';
import { openDatabase, type DatabaseHandle } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { createAbandonedWrites } from './abandoned-writes.js';

const onPostgres = await postgresAvailable();

describe(
  'abandoned writes while the database is away',
  { skip: onPostgres ? false : 'needs PostgreSQL at 127.0.0.1:5432 behind a proxy the test cuts' },
  () => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let handle: DatabaseHandle;

    before(async () => {
      database = await createTestDatabase({ poolSize: 2 });
      const url = new URL(database.url ?? '');
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
      url.port = String(proxy.port);
      handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 });
      await migrateToLatest(handle.db);
    });
    after(async () => {
      await handle.close();
      await proxy.close();
      await database.drop();
    });

    it('keeps the keys until the database answers, then records them', async () => {
      const abandoned = createAbandonedWrites({ db: handle.db, clock: systemClock, log: pino({ level: 'silent' }) });
      try {
        await proxy.pause();
        await abandoned.record(['documents/c/2026-11-28/doc_a.signed-xml.v1.xml'], 'document doc_a was not stored');
        assert.equal(abandoned.waiting(), 1);
        await proxy.resume();
        await until(
          () => Promise.resolve(abandoned.waiting()),
          (waiting) => waiting === 0,
          'keys waiting',
          10_000,
        );
        const rows = await handle.db.selectFrom('abandoned_blobs').select(['key', 'cause']).execute();
        assert.deepEqual(rows, [
          { key: 'documents/c/2026-11-28/doc_a.signed-xml.v1.xml', cause: 'document doc_a was not stored' },
        ]);
      } finally {
        abandoned.close();
      }
    });
  },
);
