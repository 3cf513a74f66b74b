// The relational database: PostgreSQL through `pg` when DATABASE_URL is set, embedded PGlite otherwise.
// Both are reached through the same Kysely instance and the same SqlExecutor, so every query, migration and
// job runs one code path on either back end.
import { join } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { lockDataDir } from './data-dir-lock.js';
import { openPgliteGateway } from './pglite-gateway.js';
import { preparingClient } from './prepared.js';
import { withTimeout } from '../timeout.js';
import type { PlatformTables } from './schema.js';
import type { SqlExecutor } from './sql-executor.js';
import { assertOutsideTransaction } from './transaction-scope.js';
import { DATE_OID, INT8_OID, NUMERIC_OID, parseDate, parseInt8, parseNumeric } from './type-parsers.js';

/**
 * The database as a layer sees it: the platform's tables and the tables `T` it owns (a module's `<M>Tables`,
 * src/modules/<m>/tables.ts). Code of a module handles `Db<ItsTables>`; bare `Db` is the platform's view, and the
 * view a function exported across modules takes (`AnyDb`), narrowed inside by tablesOf (tables-of.ts).
 */
export type Db<T extends object = object> = Kysely<PlatformTables & T>;

/** Any layer's view of the database, as functions exported across modules take it. */
export type AnyDb = Db;

/** `T`: the tables its holder sees (the application: all of them, src/database.ts). */
export interface DatabaseHandle<T extends object = object> {
  kind: 'postgres' | 'pglite';
  db: Db<T>;
  /** For pg-boss and raw probes; on PGlite it waits its turn at the same gate as Kysely. */
  executor: SqlExecutor;
  probe(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** `poolSize`: connections per process (DATABASE_POOL_SIZE; its default and the reasons for it are in config.ts, applied by database-target.ts). */
export type DatabaseTarget =
  | {
      kind: 'postgres';
      url: string;
      poolSize: number;
      /** DATABASE_CONNECT_TIMEOUT_MS; absent: 5 s. */
      connectTimeoutMs?: number;
      /** DATABASE_STATEMENT_TIMEOUT_MS, PostgreSQL's statement_timeout (0: none); absent: none. */
      statementTimeoutMs?: number;
    }
  | {
      kind: 'pglite';
      dataDir: string;
      /** EMBEDDED_DISK_RESERVE_MB in bytes: writes stop while the disk has less free (pglite-gateway.ts); absent: 0. */
      diskReserveBytes?: number;
    }
  | {
      kind: 'pglite-memory';
      /** A data directory image (PGlite's dumpDataDir) to start from instead of an empty cluster: PGlite's initdb
       * is most of its start, so tests that make many in-memory databases make them from one migrated image. */
      image?: Blob;
    };

const pgTypes = new pg.TypeOverrides();
pgTypes.setTypeParser(INT8_OID, parseInt8);
pgTypes.setTypeParser(NUMERIC_OID, parseNumeric);
pgTypes.setTypeParser(DATE_OID, parseDate);

function openPostgres(target: Extract<DatabaseTarget, { kind: 'postgres' }>): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: target.url,
    max: target.poolSize,
    types: pgTypes,
    connectionTimeoutMillis: target.connectTimeoutMs ?? 5_000,
    // Sent at connect: the server cancels a statement that runs longer (57014, a 503 to a request).
    ...(target.statementTimeoutMs === undefined ? {} : { statement_timeout: target.statementTimeoutMs }),
    // A server gone without a word (a host down, a network cut) is noticed by TCP keepalive, not never.
    keepAlive: true,
  });
  // A client that loses its server (a restart, a failover, an administrator: 57P01) emits 'error'; an 'error'
  // event nobody hears ends the process. The pool hears its idle clients only, so every client gets a listener of
  // its own for its whole life: while handed out, the statement in flight or the next one fails with the error,
  // and the pool drops the client when it comes back.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const guardedPool = {
    async connect() {
      assertOutsideTransaction();
      return preparingClient(await pool.connect());
    },
    end: () => pool.end(),
  };
  const db = new Kysely<PlatformTables>({ dialect: new PostgresDialect({ pool: guardedPool }) });
  const executor: SqlExecutor = {
    async executeSql(text, values) {
      assertOutsideTransaction();
      const result = await pool.query(text, values);
      return { rows: result.rows };
    },
  };
  return {
    kind: 'postgres',
    db,
    executor,
    probe: (timeoutMs) =>
      withTimeout(
        sql`select 1`.execute(db).then(() => undefined),
        timeoutMs,
        'PostgreSQL',
      ),
    close: () => db.destroy(),
  };
}

async function openPglite(
  dataDir: string | undefined,
  options: { log?: Logger; reserveBytes?: number; image?: Blob },
): Promise<DatabaseHandle> {
  const unlock = dataDir === undefined ? () => undefined : lockDataDir(dataDir);
  try {
    const gateway = await openPgliteGateway(dataDir === undefined ? undefined : join(dataDir, 'pgdata'), options);
    const db = new Kysely<PlatformTables>({
      dialect: new PostgresDialect({ pool: gateway.pool as unknown as pg.Pool }),
    });
    return {
      kind: 'pglite',
      db,
      executor: gateway,
      probe: (timeoutMs) =>
        withTimeout(
          gateway.executeSql('select 1', []).then(() => undefined),
          timeoutMs,
          'Embedded database',
        ),
      async close() {
        await db.destroy();
        await gateway.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** `log` hears what the embedded database does by itself (a stop and its reopen). */
export function openDatabase(target: DatabaseTarget, log?: Logger): Promise<DatabaseHandle> {
  switch (target.kind) {
    case 'postgres':
      return Promise.resolve(openPostgres(target));
    case 'pglite':
      return openPglite(target.dataDir, {
        ...(log === undefined ? {} : { log }),
        ...(target.diskReserveBytes === undefined ? {} : { reserveBytes: target.diskReserveBytes }),
      });
    case 'pglite-memory':
      return openPglite(undefined, {
        ...(log === undefined ? {} : { log }),
        ...(target.image === undefined ? {} : { image: target.image }),
      });
  }
}
