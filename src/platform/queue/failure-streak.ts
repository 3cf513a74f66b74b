// A loop's run of consecutive failures, as when its database is away (a restart, a failover: issue 43). The loop
// rests longer after each failure, up to a few seconds, instead of asking a dead server several times a second, and
// logs the first failure of a run, a reminder now and then, and the return, instead of one warning per try.
import { backoffMs } from '../backoff.js';
import type { Logger } from '../observability/logger.js';

export interface FailureStreak {
  /** Logs as due and returns how long to rest before the next try. */
  failed(error: unknown): number;
  /** Ends a run of failures, logging that the loop works again. */
  succeeded(): void;
}

/** Long enough that a dead server is not asked in a tight loop, short enough to be back within seconds. */
const longestRestMs = 5_000;
/** While a run lasts, one warning in this many failures. */
const remindEvery = 20;

export function failureStreak(log: Logger, what: string, restMs: number): FailureStreak {
  let failures = 0;
  return {
    failed(error) {
      failures++;
      if (failures === 1 || failures % remindEvery === 0) log.warn({ err: error, failures }, `${what} failed`);
      return backoffMs(failures, Math.max(restMs, 100), Math.max(restMs, longestRestMs));
    },
    succeeded() {
      if (failures === 0) return;
      log.info({ failures }, `${what} works again`);
      failures = 0;
    },
  };
}
