// Telling a database that cannot be reached (a restart, a failover, the network) from a statement that is wrong:
// the first is worth waiting out and trying again (HTTP answers 503 database_unavailable), the second is not.
/** SQLSTATE classes and codes that mean the server, not the statement, failed: 08 connection exception, 57P01-57P03
 * (administrator, crash or startup shutdown: a restart or a failover), 53300 too many connections, 57014 a statement
 * cancelled (by DATABASE_STATEMENT_TIMEOUT_MS: a server too slow or a lock held too long). */
const unavailableSqlState = /^(08...|57P0[1-3]|53300|57014)$/;
/** What node-postgres and pg-pool throw, without a SQLSTATE, when the connection is refused, lost or never made. */
const unavailableMessage =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;
const unavailableErrno = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/** Whether `error` says the database cannot be reached (a restart, a failover, the network), not that a statement is wrong. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (unavailableSqlState.test(code) || unavailableErrno.has(code))) return true;
  return unavailableMessage.test(error.message);
}

/** Whether `error` is the database's disk full (SQLSTATE 53100): PostgreSQL, or PGlite's data directory. Waiting does
 * not help; an operator makes room. */
export function isDatabaseFull(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === '53100';
}
