// Which database a configuration opens: the one rule every command that opens it shares.
import { settings, type Config } from '../../config.js';
import type { DatabaseTarget } from './database.js';

/**
 * PostgreSQL at DATABASE_URL with DATABASE_POOL_SIZE connections, else the embedded PGlite under `embeddedDir`
 * (`ecf sandbox` keeps its own apart).
 */
export function databaseTarget(
  config: Pick<
    Config,
    | 'dataDir'
    | 'databaseUrl'
    | 'databasePoolSize'
    | 'databaseConnectTimeoutMs'
    | 'databaseStatementTimeoutMs'
    | 'embeddedDiskReserveMb'
  >,
  embeddedDir: string = config.dataDir,
): DatabaseTarget {
  return config.databaseUrl === undefined
    ? { kind: 'pglite', dataDir: embeddedDir, diskReserveBytes: config.embeddedDiskReserveMb * 1_048_576 }
    : {
        kind: 'postgres',
        url: config.databaseUrl,
        poolSize: config.databasePoolSize ?? settings.DATABASE_POOL_SIZE.default,
        connectTimeoutMs: config.databaseConnectTimeoutMs,
        statementTimeoutMs: config.databaseStatementTimeoutMs,
      };
}
