// The scheduler's poller: asks DGII about the documents waiting for a verdict whose next question is due, in
// batches. Cron ticks once a minute, too slow for "fast at first", so this is a loop of its own: a full batch
// is followed at once by the next; otherwise it rests a second. Documents are claimed with SKIP LOCKED, so
// several schedulers can run it side by side.
import type { Logger } from '../../platform/observability/logger.js';
import type { Delivery } from './delivery.js';

export interface Poller {
  stop(): Promise<void>;
}

export function startPoller(deps: { delivery: Delivery; log: Logger; batchSize: number; restMs: number }): Poller {
  const { delivery, log, batchSize, restMs } = deps;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tick = () => {
    running = (async () => {
      let asked = 0;
      try {
        asked = await delivery.pollDue(batchSize);
      } catch (error) {
        log.warn({ err: error }, 'polling DGII for verdicts failed');
      }
      if (!stopped) timer = setTimeout(tick, asked >= batchSize ? 0 : restMs);
    })();
  };
  timer = setTimeout(tick, restMs);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
