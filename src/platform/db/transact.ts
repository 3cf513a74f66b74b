import type { Transaction } from 'kysely';
import type { Failure, Result } from '../result.js';
import type { Db } from './database.js';
import type { Database } from './schema.js';
import { runInTransactionScope } from './transaction-scope.js';

export type Trx = Transaction<Database>;

class RollBack extends Error {
  constructor(readonly failure: Failure) {
    super(failure.detail);
  }
}

/** Runs `work` in one transaction; a failed Result rolls everything back and is returned as it was. */
export async function transact<T>(db: Db, work: (trx: Trx) => Promise<Result<T>>): Promise<Result<T>> {
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
