// A function a module exports takes any layer's database (AnyDb, AnyTrx) and works on its own module's tables:
// tablesOf gives it that view. It checks nothing at run time; the table-ownership check (scripts/check-table-owners.mjs)
// keeps each module's SQL on its own tables.
import type { Transaction } from 'kysely';
import type { AnyDb, Db } from './database.js';
import type { PlatformTables } from './schema.js';
import type { AnyTrx, Trx } from './transact.js';

export function tablesOf<T extends object>(db: AnyTrx): Trx<T>;
export function tablesOf<T extends object>(db: AnyDb): Db<T>;
export function tablesOf<T extends object>(db: AnyDb | AnyTrx): Db<T> | Trx<T> {
  return db as Db<T> | Transaction<PlatformTables & T>;
}
