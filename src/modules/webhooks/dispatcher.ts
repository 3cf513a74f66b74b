// The workers' webhook loops (worker role only), like sending's poller rather than a job per delivery:
// - fan-out: new outbox events into deliveries, a batch at a time; a full batch is followed at once by the next,
//   otherwise it rests for the dispatch interval. Events are taken with SKIP LOCKED, so workers run it side by side.
// - delivery: claims the deliveries due (one statement for up to a batch, SKIP LOCKED and leased, so workers claim
//   side by side) and POSTs them concurrently, at most `concurrency` in flight. While claims come back full it keeps
//   claiming as room frees up; otherwise it rests until woken (a fan-out or a re-send in this process wakes it at
//   once) or for the dispatch interval (deliveries made by other processes, retries coming due).
import type { Logger } from '../../platform/observability/logger.js';
import type { WebhookDelivery } from './delivery-engine.js';

export interface Dispatcher {
  /** Deliveries may be due: claim now instead of at the end of the rest. */
  wake(): void;
  stop(): Promise<void>;
}

export function startDispatcher(deps: { delivery: WebhookDelivery; log: Logger; batchSize: number; concurrency: number; restMs: number }): Dispatcher {
  const { delivery, log, batchSize, restMs } = deps;
  const concurrency = Math.max(1, deps.concurrency);
  // Claim when at least this much room is free: claims of a useful size instead of one per finished delivery.
  const claimAtRoom = Math.max(1, Math.floor(concurrency / 2));
  // Read and written by the loops and by wake() and stop(), across awaits.
  const state = { stopped: false, woken: false, waitingForRoom: false };

  // Fan-out.
  let fanOutTimer: NodeJS.Timeout | undefined;
  let fanningOut: Promise<void> = Promise.resolve();
  const fanOut = () => {
    fanningOut = (async () => {
      let dispatched = 0;
      try {
        dispatched = await delivery.dispatch(batchSize);
      } catch (error) {
        log.warn({ err: error }, 'webhook fan-out failed');
      }
      if (dispatched > 0) wake();
      if (!state.stopped) fanOutTimer = setTimeout(fanOut, dispatched >= batchSize ? 0 : restMs);
    })();
  };

  // Delivery.
  const inFlight = new Set<Promise<void>>();
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
  function wake() {
    state.woken = true;
    signal?.();
  }
  const deliveryLoop = (async () => {
    while (!state.stopped) {
      const room = concurrency - inFlight.size;
      if (room < claimAtRoom) {
        state.waitingForRoom = true;
        await pause(restMs);
        state.waitingForRoom = false;
        continue;
      }
      state.woken = false;
      let claimed: Awaited<ReturnType<WebhookDelivery['claim']>> = [];
      try {
        claimed = await delivery.claim(Math.min(room, batchSize));
      } catch (error) {
        log.warn({ err: error }, 'claiming webhook deliveries failed');
      }
      for (const one of claimed) {
        const attempt: Promise<void> = delivery
          .attempt(one)
          .catch((error: unknown) => {
            // The lease runs out and the next claim takes it again.
            log.warn({ err: error, deliveryId: one.id }, 'webhook delivery attempt failed');
          })
          .finally(() => {
            inFlight.delete(attempt);
            if (state.waitingForRoom && inFlight.size <= concurrency - claimAtRoom) signal?.();
          });
        inFlight.add(attempt);
      }
      // A full claim: more are probably due, claim again as soon as there is room.
      if (claimed.length === Math.min(room, batchSize) && claimed.length > 0) continue;
      if (!wokenOrStopped()) await pause(restMs);
    }
  })();

  fanOutTimer = setTimeout(fanOut, 0);

  return {
    wake,
    async stop() {
      state.stopped = true;
      clearTimeout(fanOutTimer);
      signal?.();
      await fanningOut;
      await deliveryLoop;
      await Promise.all(inFlight);
    },
  };
}
