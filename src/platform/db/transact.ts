import type { Transaction } from 'kysely';
import type { Failure, Result } from '../result.js';
import type { Db } from './database.js';
import type { PlatformTables } from './schema.js';
import { runInTransactionScope } from './transaction-scope.js';

/** A transaction over the platform's tables and the tables `T` of the layer that holds it (see Db). */
export type Trx<T extends object = object> = Transaction<PlatformTables & T>;

/** Any layer's transaction, as functions exported across modules take it. */
export type AnyTrx = Trx;

class RollBack extends Error {
  constructor(readonly failure: Failure) {
    super(failure.detail);
  }
}

/** Runs `work` in one transaction; a failed Result rolls everything back and is returned as it was. */
export async function transact<T, Tables extends object = object>(
  db: Db<Tables>,
  work: (trx: Trx<Tables>) => Promise<Result<T>>,
): Promise<Result<T>> {
  try {
    return await db.transaction().execute((trx) =>
      runInTransactionScope(async () => {
        const result = await work(trx);
        if (!result.ok) throw new RollBack(result.failure);
        return result;
      }),
    );
  } catch (error) {
    if (error instanceof RollBack) return { ok: false, failure: error.failure };
    throw error;
  }
}
