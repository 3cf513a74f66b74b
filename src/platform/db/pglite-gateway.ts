// The embedded database: one PGlite instance shared by the API, the worker and the scheduler through one
// serialised gateway. PGlite is a single session, so a raw BEGIN from one caller would swallow another's
// statements (research/stack.md, pitfall 15); every caller takes the gate for as long as it holds the
// connection, which for a Kysely transaction is the whole transaction.
import { PGlite } from '@electric-sql/pglite';
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
  return /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? '';
}

function hasParameters(values: readonly unknown[] | undefined): values is readonly unknown[] {
  return values !== undefined && values.length > 0;
}

/**
 * How long a caller waits for its turn. A statement of PGlite that never returns (its data directory full while it
 * wrote the WAL wedges it: issue 43) would otherwise hold every request behind it for ever; this bounds them, and the
 * message is pg-pool's, which says the database is unavailable (db/unavailable.ts): a 503.
 */
const gateTimeoutMs = 10_000;
const gateTimedOut = () => new Error('timeout exceeded when trying to connect to the embedded database');

/** `dataDir` undefined = in memory. */
export async function openPgliteGateway(dataDir: string | undefined): Promise<PgliteGateway> {
  const pglite = await PGlite.create(dataDir, {
    parsers: { [INT8_OID]: parseInt8, [NUMERIC_OID]: parseNumeric, [DATE_OID]: parseDate },
  });
  const gate = new SerialGate();

  async function run(text: string, values?: readonly unknown[]) {
    // pg-boss sends parameter-less multi-statement scripts, which only exec() accepts.
    if (!hasParameters(values) && text.includes(';') && text.trim().replace(/;\s*$/, '').includes(';')) {
      const results = await pglite.exec(text);
      const last = results.at(-1);
      return { rows: last?.rows ?? [], rowCount: last?.affectedRows ?? 0, command: commandOf(text) };
    }
    const result = await pglite.query(text, hasParameters(values) ? [...values] : []);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length, command: commandOf(text) };
  }

  let closed = false;
  return {
    pool: {
      async connect() {
        if (closed) throw new Error('The embedded database is closed');
        assertOutsideTransaction();
        const release = await gate.acquire(gateTimeoutMs, gateTimedOut);
        return { query: run, release };
      },
      async end() {
        // Closed by close(); Kysely's destroy() calls this first.
      },
    },
    async executeSql(text, values) {
      assertOutsideTransaction();
      const release = await gate.acquire(gateTimeoutMs, gateTimedOut);
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
        await pglite.close();
      } finally {
        release();
      }
    },
  };
}
