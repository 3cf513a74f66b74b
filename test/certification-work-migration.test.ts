// The upgrade to certification work on the engine (migration 0028): a database of the release before, mid-run, with
// lanes holding work and an approval marked sent whose worker stopped before DGII answered, is migrated; each lane
// with work and each unanswered approval is queued once, due now, and nothing else is.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { migrations } from '../migrations/index.js';
import { openDatabase, type DatabaseHandle } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './support/backends.js';

const start = new Date('2026-11-29T12:00:00Z');

describe('upgrading to certification work on the engine (migration 0028)', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: () => Promise.resolve(migrations) } });
    const { error } = await migrator.migrateTo('20261128_0027_engine_leases');
    assert.equal(error, undefined);
  });
  after(async () => {
    await handle.close();
    await database.drop();
  });

  it('queues the lanes with work and the approvals sent without an answer, and nothing else', async () => {
    await handle.db.connection().execute(async (connection) => {
      // The rows stand alone: their company is not what is tested.
      await sql`set session_replication_role = replica`.execute(connection);
      const process = (id: string, status: string) => sql`
        insert into certification_processes (id, company_id, environment, label, status, set_sha256, created_at, updated_at)
        values (${id}, ${`cmp_${id}`}, 'CERT', 'set', ${status}, 'sha', ${start}, ${start})`;
      const caseRow = (processId: string, kind: string, key: string, status: string, queued: boolean) => sql`
        insert into certification_cases (process_id, kind, case_key, step, position, origin, payload, payload_sha256,
          route, status, queued_at, updated_at)
        values (${processId}, ${kind}, ${key}, 2, 1, 'set', '{}'::jsonb, 'sha', ${kind === 'ACECF' ? 'approval' : 'reception'},
          ${status}, ${queued ? start : null}, ${start})`;
      for (const [id, status] of [
        ['prc_running', 'active'],
        ['prc_approving', 'active'],
        ['prc_untouched', 'active'],
        ['prc_failed', 'failed'],
      ] as const)
        await process(id, status).execute(connection);
      await caseRow('prc_running', 'ECF', 'E1', 'accepted', true).execute(connection);
      await caseRow('prc_running', 'ECF', 'E2', 'pending', true).execute(connection);
      await caseRow('prc_approving', 'ECF', 'E1', 'accepted', false).execute(connection);
      await caseRow('prc_approving', 'ACECF', 'A1', 'sent', true).execute(connection);
      await caseRow('prc_approving', 'ACECF', 'A2', 'accepted', false).execute(connection);
      await caseRow('prc_untouched', 'ECF', 'E1', 'pending', false).execute(connection);
      await caseRow('prc_failed', 'ECF', 'E1', 'pending', true).execute(connection);
      await caseRow('prc_failed', 'ACECF', 'A1', 'sent', true).execute(connection);
    });
    // 0028 first; the migrations after it are other upgrades' to test.
    assert.deepEqual((await migrateToLatest(handle.db)).slice(0, 1), ['20261129_0028_certification_work']);
    const queued = await handle.db
      .selectFrom('outbound_work')
      .select(['target', 'item_id', 'environment', 'lease_id', 'attempts'])
      .orderBy('target')
      .orderBy('item_id')
      .execute();
    assert.deepEqual(queued, [
      { target: 'certification.acecf', item_id: 'prc_approving/A1', environment: 'CERT', lease_id: null, attempts: 0 },
      { target: 'certification.lane', item_id: 'prc_approving', environment: 'CERT', lease_id: null, attempts: 0 },
      { target: 'certification.lane', item_id: 'prc_running', environment: 'CERT', lease_id: null, attempts: 0 },
    ]);
  });
});
