// A worker's loop over rows that are their own jobs (webhook deliveries, documents to send): it claims the rows due
// (one statement for up to a batch, SKIP LOCKED and leased, so workers claim side by side) and works them
// concurrently, at most `concurrency` at once. While claims come back full it keeps claiming as room frees up;
// otherwise it rests until woken (work made in this process wakes it at once) or for `restMs` (work made by other
// processes, retries coming due). A row whose work throws, or whose worker dies, stays leased until its lease runs
// out and the next claim takes it again: the claim, not this loop, is what makes the work safe to repeat. Claims
// that fail (the database away) are tried again after longer and longer rests (failure-streak.ts).
import type { Logger } from '../observability/logger.js';
import { failureStreak } from './failure-streak.js';

export interface ClaimLoop {
  /** Work may be due: claim now instead of at the end of the rest. */
  wake(): void;
  /** Stops claiming and waits for the work in flight. */
  stop(): Promise<void>;
}

export function startClaimLoop<T>(deps: {
  /** What the loop works, for its log lines ("webhook delivery", "document send"). */
  name: string;
  claim: (limit: number) => Promise<readonly T[]>;
  work: (item: T) => Promise<void>;
  /** The item's id, for the log line of a failed work. */
  idOf: (item: T) => string;
  log: Logger;
  batchSize: number;
  concurrency: number;
  restMs: number;
}): ClaimLoop {
  const { name, claim, work, idOf, log, batchSize, restMs } = deps;
  const concurrency = Math.max(1, deps.concurrency);
  // Claim when at least this much room is free: claims of a useful size instead of one per finished item, while
  // the work in flight stays near `concurrency` (claiming at half would average three quarters of it).
  const claimAtRoom = Math.max(1, Math.floor(concurrency / 4));
  // Read and written by the loop and by wake() and stop(), across awaits.
  const state = { stopped: false, woken: false, waitingForRoom: false };
  const inFlight = new Set<Promise<void>>();
  const claims = failureStreak(log, `claiming ${name}s`, restMs);
  let signal: (() => void) | undefined;

  /** Resolves on a wake-up (or, while waiting for room, room enough to claim), or after `ms`. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal = undefined;
        resolve();
      }
      signal = done;
    });
  // A function, so the type checker does not take the flags as still what they were before the awaits.
  const wokenOrStopped = () => state.woken || state.stopped;

  const loop = (async () => {
    while (!state.stopped) {
      const room = concurrency - inFlight.size;
      if (room < claimAtRoom) {
        state.waitingForRoom = true;
        await pause(restMs);
        state.waitingForRoom = false;
        continue;
      }
      state.woken = false;
      const limit = Math.min(room, batchSize);
      let claimed: readonly T[];
      try {
        claimed = await claim(limit);
        claims.succeeded();
      } catch (error) {
        await pause(claims.failed(error));
        continue;
      }
      for (const item of claimed) {
        const working: Promise<void> = work(item)
          .catch((error: unknown) => {
            log.warn({ err: error, id: idOf(item) }, `${name} failed`);
          })
          .finally(() => {
            inFlight.delete(working);
            if (state.waitingForRoom && inFlight.size <= concurrency - claimAtRoom) signal?.();
          });
        inFlight.add(working);
      }
      // A full claim: more are probably due, claim again as soon as there is room.
      if (claimed.length === limit && claimed.length > 0) continue;
      if (!wokenOrStopped()) await pause(restMs);
    }
  })();

  return {
    wake() {
      state.woken = true;
      signal?.();
    },
    async stop() {
      state.stopped = true;
      signal?.();
      await loop;
      await Promise.all(inFlight);
    },
  };
}
