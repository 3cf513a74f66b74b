import { AsyncLocalStorage } from 'node:async_hooks';

// Code running inside transact() must use its transaction, never the pool: on embedded PGlite (one session)
// a second connection waits for the open transaction forever, and on PostgreSQL the work would silently fall
// outside the transaction. Taking a pool connection inside the scope fails at once, on both back ends.
const scope = new AsyncLocalStorage<true>();

export class ConnectionInsideTransactionError extends Error {
  constructor() {
    super('A database connection was requested inside a transaction: use the transaction (trx), not db.');
    this.name = 'ConnectionInsideTransactionError';
  }
}

export function runInTransactionScope<T>(work: () => Promise<T>): Promise<T> {
  return scope.run(true, work);
}

/** Kysely opens the transaction's own connection before the scope's work begins, so any later request is misuse. */
export function assertOutsideTransaction(): void {
  if (scope.getStore() === true) throw new ConnectionInsideTransactionError();
}
