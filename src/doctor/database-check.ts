// The database answers, is migrated to this version and serves this instance's environment: read, never changed
// (no migration runs, no environment is recorded).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { databaseTarget } from '../platform/db/database-target.js';
import { openDatabase, type DatabaseHandle } from '../platform/db/database.js';
import { DataDirInUseError } from '../platform/db/data-dir-lock.js';
import { DatabaseEnvironmentError, storedEnvironment } from '../platform/db/environment-guard.js';
import { migrationState } from '../platform/db/migrate.js';
import { reasonOf, type CheckResult } from './check.js';
import { databaseObjection, objectionResult } from './production-rules.js';

/** The database as a line names it: never its URL, which may carry a password. */
function databaseName(config: Pick<Config, 'databaseUrl'>): string {
  if (config.databaseUrl === undefined) return 'the embedded database (DATA_DIR/pgdata)';
  const url = new URL(config.databaseUrl);
  return `PostgreSQL at ${url.host}${url.pathname}`;
}

/** The lines, and the database open for the checks that read it when it answered. */
export async function checkDatabase(
  config: Config,
): Promise<{ results: CheckResult[]; database: DatabaseHandle | undefined }> {
  const results = objectionResult('database', databaseObjection(config));
  const line = (status: CheckResult['status'], text: string) => {
    results.push({ check: 'database', status, line: text });
    return { results, database: undefined };
  };
  const name = databaseName(config);
  // Opening an embedded database that is not there would make one.
  if (config.databaseUrl === undefined && !existsSync(join(config.dataDir, 'pgdata')))
    return line('warning', `there is no embedded database under ${config.dataDir} yet: the first start makes it`);
  let database: DatabaseHandle;
  try {
    database = await openDatabase(databaseTarget(config));
  } catch (error) {
    if (error instanceof DataDirInUseError)
      return line(
        'failure',
        `${name} is in use by a running ecf (it serves one process): stop it to check, or run on PostgreSQL`,
      );
    return line('failure', `${name} cannot be opened: ${reasonOf(error)}`);
  }
  try {
    const state = await migrationState(database.db);
    const stored = await storedEnvironment(database.db);
    if (state.unknown.length > 0)
      line(
        'failure',
        `${name} was migrated by a newer version of the service (${state.unknown.join(', ')} unknown here): run that version, or restore the database it had`,
      );
    else if (state.pending.length > 0)
      line(
        'failure',
        `${name} lacks ${state.pending.length} migration(s) of this version (${state.pending.join(', ')}): run ecf migrate`,
      );
    else if (stored !== undefined && stored !== config.fiscalEnv)
      line('failure', new DatabaseEnvironmentError(config.fiscalEnv, stored).message);
    else
      line(
        'ok',
        `${name} answers, migrated to this version (${state.applied.length} migrations, the last ${state.applied.at(-1) ?? 'none'})${stored === undefined ? '' : `, serving FISCAL_ENV=${stored}`}`,
      );
    return { results, database };
  } catch (error) {
    await database.close();
    return line('failure', `${name} does not answer: ${reasonOf(error)}; check DATABASE_URL and that the server runs`);
  }
}
