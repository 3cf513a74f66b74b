import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { DgiiSessionsTables } from './tables.js';

export async function saveSession(
  db: Db<DgiiSessionsTables>,
  session: { companyId: string; environment: FiscalEnvironment; tokenSealed: string; expiresAt: Date; at: Date },
): Promise<void> {
  await db
    .insertInto('dgii_sessions')
    .values({
      company_id: session.companyId,
      environment: session.environment,
      token_encrypted: session.tokenSealed,
      expires_at: session.expiresAt,
      created_at: session.at,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['company_id', 'environment'])
        .doUpdateSet({ token_encrypted: session.tokenSealed, expires_at: session.expiresAt, created_at: session.at }),
    )
    .execute();
}

export function findSession(
  db: Db<DgiiSessionsTables>,
  companyId: string,
  environment: FiscalEnvironment,
): Promise<{ token_encrypted: string; expires_at: Date } | undefined> {
  return db
    .selectFrom('dgii_sessions')
    .select(['token_encrypted', 'expires_at'])
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .executeTakeFirst();
}
