import { Migrator, sql, type Kysely, type MigrationResult } from 'kysely';
import { migrations } from '../../../migrations/index.js';

export class MigrationError extends Error {
  constructor(cause: unknown, results: MigrationResult[] | undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    super(`Database migration${failed === undefined ? '' : ` ${failed}`} failed: ${String(cause)}`, { cause });
    this.name = 'MigrationError';
  }
}

/** Applies every pending migration; returns the names applied. Kysely returns errors rather than throwing them. */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<string[]> {
  // On one connection without the statement timeout (DATABASE_STATEMENT_TIMEOUT_MS): an index built over ten years
  // of documents takes what it takes. The connection goes back to the pool with the timeout it had.
  return db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    try {
      const migrator = new Migrator({ db: connection, provider: { getMigrations: () => Promise.resolve(migrations) } });
      const { error, results } = await migrator.migrateToLatest();
      if (error !== undefined) throw new MigrationError(error, results);
      return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
    } finally {
      await sql`reset statement_timeout`.execute(connection).catch(() => undefined);
    }
  });
}
