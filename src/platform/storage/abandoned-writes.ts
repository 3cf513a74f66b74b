// Blobs written for work that then failed before its record was stored. Archive writes come first and the record
// after (a crash leaves an unnamed object, never a record naming nothing), so a creation cut by a database outage,
// or by a store that filled up after some of its blobs, leaves objects no record names. They are recorded here as
// abandoned, with why, and the archive verifier passes over them instead of reporting orphans an operator would have
// to chase. The failure is often the database itself: then the keys wait in memory and are recorded as soon as it
// answers again (a process that dies meanwhile leaves them as orphans, which the verifier then reports).
import type { Logger } from '../observability/logger.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';

export interface AbandonedWrites {
  /** Records the keys as abandoned; never throws (see above). Keys that a record names after all are harmless here. */
  record(keys: readonly string[], cause: string): Promise<void>;
  /** Keys still waiting for the database. */
  waiting(): number;
  /** Stops retrying; what still waits is left to the verifier. */
  close(): void;
}

/** How often keys that could not be recorded are tried again. */
const retryEveryMs = 2_000;

export function createAbandonedWrites(deps: { db: Db; clock: Clock; log: Logger }): AbandonedWrites {
  const { db, clock, log } = deps;
  const pending = new Map<string, { cause: string; at: Date }>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  async function insert(rows: { key: string; cause: string; at: Date }[]): Promise<void> {
    await db
      .insertInto('abandoned_blobs')
      .values(rows.map((row) => ({ key: row.key, cause: row.cause, abandoned_at: row.at })))
      .onConflict((conflict) => conflict.column('key').doNothing())
      .execute();
  }

  async function retry(): Promise<void> {
    timer = undefined;
    const rows = [...pending].map(([key, { cause, at }]) => ({ key, cause, at }));
    try {
      await insert(rows);
      for (const row of rows) pending.delete(row.key);
      log.info({ keys: rows.length }, 'abandoned archive writes recorded');
    } catch {
      // Still away: the next round tries again.
    }
    schedule();
  }

  function schedule(): void {
    if (closed || timer !== undefined || pending.size === 0) return;
    timer = setTimeout(() => void retry(), retryEveryMs);
    timer.unref();
  }

  return {
    async record(keys, cause) {
      if (keys.length === 0) return;
      const at = clock.now();
      try {
        await insert(keys.map((key) => ({ key, cause, at })));
      } catch (error) {
        log.warn({ err: error, keys: keys.length }, 'abandoned archive writes wait for the database');
        for (const key of keys) pending.set(key, { cause, at });
        schedule();
      }
    },
    waiting: () => pending.size,
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
