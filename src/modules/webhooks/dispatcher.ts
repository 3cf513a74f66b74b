// The workers' webhook loops (worker role only), like sending's poller rather than a job per delivery:
// - fan-out: new outbox events into deliveries, a batch at a time; a full batch is followed at once by the next,
//   otherwise it rests for the dispatch interval. Events are taken with SKIP LOCKED, so workers run it side by side.
// - delivery: the platform's claim loop (platform/queue/claim-loop.ts) over the deliveries due, POSTing them
//   concurrently; a fan-out or a re-send in this process wakes it at once.
import type { Logger } from '../../platform/observability/logger.js';
import { startClaimLoop } from '../../platform/queue/claim-loop.js';
import { failureStreak } from '../../platform/queue/failure-streak.js';
import type { WebhookDelivery } from './delivery-engine.js';

export interface Dispatcher {
  /** Deliveries may be due: claim now instead of at the end of the rest. */
  wake(): void;
  stop(): Promise<void>;
}

export function startDispatcher(deps: {
  delivery: WebhookDelivery;
  log: Logger;
  batchSize: number;
  concurrency: number;
  restMs: number;
}): Dispatcher {
  const { delivery, log, batchSize, restMs } = deps;
  const state = { stopped: false };

  // Fan-out.
  const fanOuts = failureStreak(log, 'webhook fan-out', restMs);
  let fanOutTimer: NodeJS.Timeout | undefined;
  let fanningOut: Promise<void> = Promise.resolve();
  const fanOut = () => {
    fanningOut = (async () => {
      let dispatched = 0;
      let rest = restMs;
      try {
        dispatched = await delivery.dispatch(batchSize);
        fanOuts.succeeded();
      } catch (error) {
        rest = fanOuts.failed(error);
      }
      if (dispatched > 0) wake();
      if (!state.stopped) fanOutTimer = setTimeout(fanOut, dispatched >= batchSize ? 0 : rest);
    })();
  };

  // Delivery.
  const deliveries = startClaimLoop({
    name: 'webhook delivery',
    claim: (limit) => delivery.claim(limit),
    work: (one) => delivery.attempt(one),
    idOf: (one) => one.id,
    log,
    batchSize,
    concurrency: deps.concurrency,
    restMs,
  });
  function wake() {
    deliveries.wake();
  }

  fanOutTimer = setTimeout(fanOut, 0);

  return {
    wake,
    async stop() {
      state.stopped = true;
      clearTimeout(fanOutTimer);
      await fanningOut;
      await deliveries.stop();
    },
  };
}
