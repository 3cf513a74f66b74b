import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { ApiKeysTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export function insertApiKey(trx: Trx, row: Insertable<ApiKeysTable>): Promise<ApiKeyRow> {
  return trx.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findKeyWithCompany(db: Db, id: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('companies', 'companies.id', 'api_keys.company_id')
    .select([
      'api_keys.id',
      'api_keys.company_id',
      'api_keys.environment',
      'api_keys.scopes',
      'api_keys.key_hash',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'companies.permissions',
    ])
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
}

export function listCompanyKeys(db: Db, companyId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function revokeKey(trx: Trx, companyId: string, id: string, at: Date): Promise<ApiKeyRow | undefined> {
  return trx
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(at)) }))
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function touchKey(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
