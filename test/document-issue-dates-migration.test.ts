// The upgrade that gives documents their issue day as a date (migration 0029): the documents stored before it get
// the day their FechaEmision text names, read as the service reads it (fiscal/dates.ts), and none where the text
// is not a real day.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { migrations } from '../migrations/index.js';
import { isoDateOfDgiiDate } from '../src/fiscal/dates.js';
import { openDatabase, type DatabaseHandle } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './support/backends.js';

const beforeIssueDates = '20261129_0028_certification_work';

describe('upgrading documents to an issue day', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: () => Promise.resolve(migrations) } });
    const { error } = await migrator.migrateTo(beforeIssueDates);
    assert.equal(error, undefined);
  });
  after(async () => {
    await handle.close();
    await database.drop();
  });

  it('reads each stored FechaEmision as the service does, leaving none that is not a real day', async () => {
    const texts = [
      '21-11-2026',
      '1-2-2026',
      '29-02-2028',
      '31-12-2026',
      '29-02-2027',
      '31-04-2026',
      '00-01-2026',
      '01-13-2026',
      '2026-11-21',
      '',
    ];
    const now = new Date();
    await handle.db.connection().execute(async (connection) => {
      // The rows stand alone: their company is not what is tested.
      await sql`set session_replication_role = replica`.execute(connection);
      for (const [index, text] of texts.entries())
        await sql`
          insert into documents (id, company_id, environment, ecf_type, encf, status, origin, fecha_emision, monto_total,
            security_code, fecha_hora_firma, timbre_url, warnings, created_at, updated_at)
          values (${`doc_${String(index)}`}, 'cmp_1', 'TEST', '31', ${`E31${String(index).padStart(10, '0')}`}, 'signed',
            'json', ${text}, '1.00', 'AbC123', '21-11-2026 10:00:00', 'u', '[]', ${now}, ${now})`.execute(connection);
      await sql`set session_replication_role = origin`.execute(connection);
    });
    await migrateToLatest(handle.db);
    const rows = await sql<{ fecha_emision: string; issued_on: string | null }>`
      select fecha_emision, issued_on from documents order by id`.execute(handle.db);
    assert.deepEqual(
      rows.rows.map((row) => [row.fecha_emision, row.issued_on]),
      texts.map((text) => [text, isoDateOfDgiiDate(text) ?? null]),
    );
    assert.deepEqual(
      rows.rows.map((row) => row.issued_on),
      ['2026-11-21', '2026-02-01', '2028-02-29', '2026-12-31', null, null, null, null, null, null],
    );
  });
});
