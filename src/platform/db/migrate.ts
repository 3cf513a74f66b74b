import { Migrator, sql, type Kysely, type MigrationResult } from 'kysely';
import { migrations } from '../../../migrations/index.js';

export class MigrationError extends Error {
  constructor(cause: unknown, results: MigrationResult[] | undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    super(`Database migration${failed === undefined ? '' : ` ${failed}`} failed: ${String(cause)}`, { cause });
    this.name = 'MigrationError';
  }
}

export interface MigrationState {
  /** This version's migrations the database has, in order. */
  applied: string[];
  /** This version's migrations it lacks. */
  pending: string[];
  /** Migrations it has that this version does not know: a newer version migrated it. */
  unknown: string[];
}

/** Where the database stands against this version's migrations, read without changing anything. */
export async function migrationState<T>(db: Kysely<T>): Promise<MigrationState> {
  const migrator = new Migrator({ db, provider: { getMigrations: () => Promise.resolve(migrations) } });
  const known = await migrator.getMigrations();
  const applied = known.filter((migration) => migration.executedAt !== undefined).map(({ name }) => name);
  const pending = known.filter((migration) => migration.executedAt === undefined).map(({ name }) => name);
  // Kysely's own table, there once any migration ran; getMigrations lists only the ones this version has.
  const recorded =
    applied.length === 0
      ? []
      : await sql<{ name: string }>`select name from kysely_migration order by name`
          .execute(db)
          .then(({ rows }) => rows);
  const unknown = recorded.map(({ name }) => name).filter((name) => !(name in migrations));
  return { applied, pending, unknown };
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
