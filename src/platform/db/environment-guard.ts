// A database serves one fiscal environment, the one of the instance that first started on it (DESIGN §1: an
// instance serves one environment). The workers take what is due from the whole database (documents to send and
// poll, annulments, the job queue), so an instance of another environment on the same database would send its
// documents to its own DGII hosts, with its own certificate: a TEST document to DGII's production reception, or a
// production invoice to the test one. Refused at start, before any worker runs.
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from './database.js';

export class DatabaseEnvironmentError extends Error {
  constructor(
    readonly configured: FiscalEnvironment,
    readonly stored: string,
  ) {
    super(
      `This database serves FISCAL_ENV=${stored}; this instance is FISCAL_ENV=${configured}. Use one database (DATABASE_URL, or DATA_DIR when embedded) per fiscal environment.`,
    );
    this.name = 'DatabaseEnvironmentError';
  }
}

const settingKey = 'fiscal_environment';

/**
 * Records the environment on a database's first start; refuses an instance of another environment afterwards.
 * `otherEnvironmentInUse`: for a database from before this check, an environment other than `environment` that its
 * data was made for (the API keys', read through api-keys' index.ts: platform names no module's table).
 */
export async function checkDatabaseEnvironment(
  db: Db,
  environment: FiscalEnvironment,
  otherEnvironmentInUse: (db: Db, environment: FiscalEnvironment) => Promise<string | undefined>,
): Promise<void> {
  let stored = await storedEnvironment(db);
  if (stored === undefined) {
    const other = await otherEnvironmentInUse(db, environment);
    if (other !== undefined) throw new DatabaseEnvironmentError(environment, other);
    await db
      .insertInto('settings')
      .values({ key: settingKey, value: environment, updated_at: new Date() })
      .onConflict((conflict) => conflict.column('key').doNothing())
      .execute();
    stored = await storedEnvironment(db);
  }
  if (stored !== environment) throw new DatabaseEnvironmentError(environment, stored ?? 'none');
}

/** The environment the database serves; undefined before an instance first started on it. */
export async function storedEnvironment(db: Db): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', settingKey).executeTakeFirst();
  return row?.value;
}
