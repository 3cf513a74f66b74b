import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../test/support/backends.js';
import { keyEnvironmentOtherThan } from '../../modules/api-keys/index.js';
import { openDatabase, type DatabaseHandle } from './database.js';
import { checkDatabaseEnvironment, DatabaseEnvironmentError } from './environment-guard.js';
import { migrateToLatest } from './migrate.js';

describe('a database serves one fiscal environment', () => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  before(async () => {
    const database = await createTestDatabase();
    handle = await openDatabase(database.target);
    drop = () => database.drop();
    await migrateToLatest(handle.db);
  });
  after(async () => {
    await handle.close();
    await drop();
  });

  const stored = async () =>
    (await handle.db.selectFrom('settings').select('value').where('key', '=', 'fiscal_environment').executeTakeFirst())
      ?.value;

  it('takes the environment of its first instance, and refuses an instance of another one, naming both', async () => {
    await checkDatabaseEnvironment(handle.db, 'CERT', keyEnvironmentOtherThan);
    assert.equal(await stored(), 'CERT');
    await checkDatabaseEnvironment(handle.db, 'CERT', keyEnvironmentOtherThan);
    await assert.rejects(
      checkDatabaseEnvironment(handle.db, 'PRODUCTION', keyEnvironmentOtherThan),
      (error: unknown) => {
        assert.ok(error instanceof DatabaseEnvironmentError);
        assert.match(error.message, /serves FISCAL_ENV=CERT; this instance is FISCAL_ENV=PRODUCTION/);
        return true;
      },
    );
    assert.equal(await stored(), 'CERT');
  });

  it('gives a database from before the check the environment of its API keys', async () => {
    await handle.db.deleteFrom('settings').where('key', '=', 'fiscal_environment').execute();
    await sql`insert into companies (id, rnc, legal_name, plan, capabilities, permissions) values ('cmp_guard', '131000001', 'Guard SRL', 'basic', '{}', 'current')`.execute(
      handle.db,
    );
    await sql`insert into api_keys (id, company_id, environment, name, scopes, key_hash, display_prefix) values ('key_guard', 'cmp_guard', 'TEST', 'old key', '{}', 'x', 'ecf_test_x')`.execute(
      handle.db,
    );
    await assert.rejects(
      checkDatabaseEnvironment(handle.db, 'PRODUCTION', keyEnvironmentOtherThan),
      /serves FISCAL_ENV=TEST; this instance is FISCAL_ENV=PRODUCTION/,
    );
    assert.equal(await stored(), undefined, 'nothing recorded for the refused instance');
    await checkDatabaseEnvironment(handle.db, 'TEST', keyEnvironmentOtherThan);
    assert.equal(await stored(), 'TEST');
  });
});
