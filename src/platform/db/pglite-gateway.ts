// The embedded database: one PGlite instance shared by the API, the worker and the scheduler through one
// serialised gateway. PGlite is a single session, so a raw BEGIN from one caller would swallow another's
// statements (research/stack.md, pitfall 15); every caller takes the gate for as long as it holds the
// connection, which for a Kysely transaction is the whole transaction.
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { createClusterOffThread, pgliteStartParams } from './pglite-cluster.js';
import { SerialGate } from './serial-gate.js';
import type { SqlExecutor } from './sql-executor.js';
import { assertOutsideTransaction } from './transaction-scope.js';
import { DATE_OID, INT8_OID, NUMERIC_OID, parseDate, parseInt8, parseNumeric } from './type-parsers.js';

export interface PoolClientShim {
  query(text: string, values?: readonly unknown[]): Promise<{ rows: unknown[]; rowCount: number; command: string }>;
  release(): void;
}

export interface PgliteGateway extends SqlExecutor {
  /** A pg.Pool look-alike for Kysely's PostgresDialect. */
  pool: { connect(): Promise<PoolClientShim>; end(): Promise<void> };
  close(): Promise<void>;
}

function commandOf(text: string): string {
  return /^[\s(]*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? '';
}

function hasParameters(values: readonly unknown[] | undefined): values is readonly unknown[] {
  return values !== undefined && values.length > 0;
}

/**
 * How long a caller waits for its turn: a long transaction ahead would otherwise hold every request behind it
 * without bound. The message is pg-pool's, which says the database is unavailable (db/unavailable.ts): a 503.
 */
const gateTimeoutMs = 10_000;
const gateTimedOut = () => new Error('timeout exceeded when trying to connect to the embedded database');

/**
 * PostgreSQL ends its server process at a PANIC (a WAL write that failed, its disk full) or a FATAL, and starts again
 * from its WAL. PGlite is that server inside this process and does neither: every later call into it spins the event
 * loop for ever, the whole process with it (probed on 0.5.16, issue 43). So the gateway never calls such an instance
 * again; it tears it down and, on disk, opens the data directory afresh, which replays the WAL as a restart would.
 */
function endsTheServer(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity;
  return severity === 'PANIC' || severity === 'FATAL';
}

/** At most one reopen per this long: one that fails (the disk still full) holds the event loop ~0.2 s. */
const reopenIntervalMs = 2_000;

/** 57P02, crash shutdown: a database that cannot be reached for now (db/unavailable.ts), a 503. */
function stoppedError(cause: string): Error {
  return Object.assign(new Error(`The embedded database stopped (${cause}); it reopens once it can write again`), {
    code: '57P02',
  });
}

/**
 * Frees a stopped instance without calling into Postgres (which would spin): its files closed and its runtime
 * ended. Both are PGlite internals (`mod` is protected); should they change, the instance's memory and files leak,
 * about 160 MB and 50 descriptors, which is better than a process that hangs.
 */
async function discard(instance: PGlite): Promise<void> {
  try {
    await instance.fs?.closeFs();
  } catch {
    // Leaked; see above.
  }
  try {
    (instance as unknown as { mod?: { _emscripten_force_exit(status: number): void } }).mod?._emscripten_force_exit(0);
  } catch {
    // Emscripten ends its runtime by throwing ExitStatus.
  }
}

/**
 * Statements that only read: everything else counts as a write (a CTE that writes, a multi-statement script). The
 * line is drawn for the reserve, so a mistake costs little: a read taken for a write is refused while the disk is
 * low, a write taken for a read (a SELECT of nextval, a row lock) writes into the reserve, which is what it is for.
 */
const readCommand = /^(SELECT|SHOW|BEGIN|START|COMMIT|END|ROLLBACK|SET|RESET|SAVEPOINT|RELEASE|EXPLAIN|VALUES)$/;
const writingCte = /\b(insert|update|delete|merge)\b/i;

function writes(text: string, script: boolean): boolean {
  const command = commandOf(text);
  if (script) return true;
  if (command === 'WITH') return writingCte.test(text);
  return !readCommand.test(command);
}

/** The free space of the filesystem `dir` is on, for unprivileged writers; unknown (unreadable): unbounded. */
function freeBytes(dir: string): number {
  try {
    // Through the fs object, not a named import, so a test's full disk (test/support/disk-full.ts) is seen.
    const stats = fs.statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

export interface PgliteGatewayOptions {
  /** Hears what the database does by itself: a stop and its reopen. */
  log?: Logger;
  /**
   * Writes are refused (53100, a 507 database_full) while the data directory's filesystem has less free than this;
   * reads go on. PostgreSQL survives a WAL write its full disk refuses (it PANICs and starts again from its WAL);
   * PGlite, inside this process, does not when the write is a transaction's COMMIT: the call never returns and the
   * event loop spins (probed on 0.5.16, issue 43). So the embedded database keeps a reserve instead of finding out.
   * 0: no reserve. On disk only.
   */
  reserveBytes?: number;
  /** In memory only: a data directory image (PGlite's dumpDataDir) to start from instead of an empty cluster. */
  image?: Blob;
}

/** `dataDir` undefined = in memory, which cannot be reopened: once stopped, it stays stopped. */
export async function openPgliteGateway(
  dataDir: string | undefined,
  options: PgliteGatewayOptions = {},
): Promise<PgliteGateway> {
  const { log, reserveBytes = 0, image } = options;
  const open = () =>
    PGlite.create(dataDir, {
      parsers: { [INT8_OID]: parseInt8, [NUMERIC_OID]: parseNumeric, [DATE_OID]: parseDate },
      startParams: pgliteStartParams,
      ...(dataDir === undefined && image !== undefined ? { loadDataDir: image } : {}),
    });
  if (dataDir !== undefined) await createClusterOffThread(dataDir);
  let pglite = await open();
  const gate = new SerialGate();
  let stopped: { cause: string; lastReopen: number } | undefined;

  /** Throws the disk full when a write would eat into the reserve. Read at every write: statfs takes about 3 µs,
   * a PGlite statement 50 µs or more, and a reading kept for a while would miss a disk that fills meanwhile. */
  function checkReserve(text: string, script: boolean): void {
    if (dataDir === undefined || reserveBytes === 0 || !writes(text, script)) return;
    const free = freeBytes(dataDir);
    if (free >= reserveBytes) return;
    const megabytes = (bytes: number) => `${String(Math.floor(bytes / 1_048_576))} MB`;
    throw Object.assign(
      new Error(
        `The embedded database's disk has ${megabytes(free)} free, less than its reserve of ${megabytes(reserveBytes)} (EMBEDDED_DISK_RESERVE_MB): writes wait until there is room`,
      ),
      { code: '53100' },
    );
  }

  async function run(text: string, values?: readonly unknown[]) {
    if (stopped !== undefined) {
      // The transaction a stopped server was in is gone; the reopen's WAL replay undoes it.
      if (commandOf(text) === 'ROLLBACK') return { rows: [], rowCount: 0, command: 'ROLLBACK' };
      throw stoppedError(stopped.cause);
    }
    // pg-boss sends parameter-less multi-statement scripts, which only exec() accepts.
    const script = !hasParameters(values) && text.includes(';') && text.trim().replace(/;\s*$/, '').includes(';');
    checkReserve(text, script);
    try {
      if (script) {
        const results = await pglite.exec(text);
        const last = results.at(-1);
        return { rows: last?.rows ?? [], rowCount: last?.affectedRows ?? 0, command: commandOf(text) };
      }
      const result = await pglite.query(text, hasParameters(values) ? [...values] : []);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length, command: commandOf(text) };
    } catch (error) {
      if (endsTheServer(error)) {
        stopped = { cause: (error as Error).message, lastReopen: 0 };
        log?.error({ err: error }, 'the embedded database stopped; it is reopened at the next statement');
        await discard(pglite);
      }
      throw error;
    }
  }

  /** Called holding the gate: a stopped instance is replaced before anyone uses it. */
  async function ensureRunning(): Promise<void> {
    if (stopped === undefined) return;
    if (dataDir === undefined || Date.now() - stopped.lastReopen < reopenIntervalMs) throw stoppedError(stopped.cause);
    stopped.lastReopen = Date.now();
    try {
      pglite = await open();
    } catch {
      throw stoppedError(stopped.cause);
    }
    log?.warn({ cause: stopped.cause }, 'the embedded database reopened');
    stopped = undefined;
  }

  async function acquire(): Promise<() => void> {
    const release = await gate.acquire(gateTimeoutMs, gateTimedOut);
    try {
      await ensureRunning();
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  let closed = false;
  return {
    pool: {
      async connect() {
        if (closed) throw new Error('The embedded database is closed');
        assertOutsideTransaction();
        return { query: run, release: await acquire() };
      },
      async end() {
        // Closed by close(); Kysely's destroy() calls this first.
      },
    },
    async executeSql(text, values) {
      assertOutsideTransaction();
      const release = await acquire();
      try {
        return await run(text, values);
      } finally {
        release();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      const release = await gate.acquire();
      try {
        if (stopped === undefined) await pglite.close();
      } finally {
        release();
      }
    },
  };
}
