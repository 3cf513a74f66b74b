// What the sandbox would otherwise read from its database on nearly every request (sessions, taxpayers,
// delegations, ranges, faults, the processing delay), kept in this process's memory: a reception and a
// consultaresultado then cost one statement or two instead of eighteen.
//
// The sandbox's own writes to that state (admin routes, upsertTaxpayer, addRange, writeSetting, reset) forget it at
// once, so within one process nothing is ever stale. Another process may share the same tables (a second `ecf start`
// or `ecf sandbox` on the same DATABASE_URL): its writes are seen here within `stateFreshnessMs`, when an entry is
// read again. What must stay exact across processes stays in the database: e-NCF uses, documents, seeds, and the
// countdown of a fault that hits a given number of requests.
import { RecentReads } from '../../platform/recent-reads.js';
import type { SandboxDb } from './schema.js';

/** How old a remembered answer may be before it is read again (the staleness another process's writes may see). */
export const stateFreshnessMs = 1_000;

/** Past this many entries (tokens accumulate, one per authentication) the cache starts over. */
const maxEntries = 10_000;

const caches = new WeakMap<SandboxDb, RecentReads<unknown>>();

function readsOf(db: SandboxDb): RecentReads<unknown> {
  let reads = caches.get(db);
  if (reads === undefined) {
    reads = new RecentReads<unknown>(stateFreshnessMs, () => 'sandbox', maxEntries);
    caches.set(db, reads);
  }
  return reads;
}

/**
 * `read`'s answer for `key`, read once and then reused until it is `stateFreshnessMs` old or the state is forgotten
 * (the service's RecentReads). An undefined answer (an unknown token: another process may issue it at any moment)
 * is not remembered.
 */
export function remembered<T>(db: SandboxDb, key: string, read: () => Promise<T>): Promise<T> {
  return readsOf(db).read(key, read) as Promise<T>;
}

/** Forgets everything remembered for `db`: every write to the remembered state calls it. */
export function forgetState(db: SandboxDb): void {
  caches.get(db)?.forgetAll();
}
