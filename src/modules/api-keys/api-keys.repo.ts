import type { Insertable, Selectable } from 'kysely';
import type { AnyDb, Db } from '../../platform/db/database.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { FiscalEnvironment } from '../../config.js';
import type { ApiKeysTable, ApiKeysTables } from './tables.js';
import type { Trx } from '../../platform/db/transact.js';
import { companyPermissionsOf } from '../companies/index.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export function insertApiKey(trx: Trx<ApiKeysTables>, row: Insertable<ApiKeysTable>): Promise<ApiKeyRow> {
  return trx.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findKeyWithCompany(db: Db<ApiKeysTables>, id: string) {
  return db
    .selectFrom('api_keys')
    .select([
      'api_keys.id',
      'api_keys.company_id',
      'api_keys.environment',
      'api_keys.scopes',
      'api_keys.key_hash',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
    ])
    .select((eb) => companyPermissionsOf(eb.ref('api_keys.company_id')).as('permissions'))
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
}

export function listCompanyKeys(db: Db<ApiKeysTables>, companyId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function revokeKey(
  trx: Trx<ApiKeysTables>,
  companyId: string,
  id: string,
  at: Date,
): Promise<ApiKeyRow | undefined> {
  return trx
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(at)) }))
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function touchKey(db: Db<ApiKeysTables>, id: string, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}

/** An environment other than `environment` that an API key was issued for; undefined when there is none. */
export async function keyEnvironmentOtherThan(db: AnyDb, environment: FiscalEnvironment): Promise<string | undefined> {
  const other = await tablesOf<ApiKeysTables>(db)
    .selectFrom('api_keys')
    .select('environment')
    .where('environment', '<>', environment)
    .limit(1)
    .executeTakeFirst();
  return other?.environment;
}
