import { Migrator, type Kysely, type MigrationResult } from 'kysely';
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
  const migrator = new Migrator({ db: db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) throw new MigrationError(error, results);
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
