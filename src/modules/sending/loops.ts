// The two loops that move documents through DGII, over the queues of the outbound work engine (platform/work):
// claimed in batches with SKIP LOCKED and leased, so several processes run them side by side and one that dies
// leaves its documents due again when their lease runs out.
// - The workers' sender: the documents whose send is due, each then sent by delivery. A document queued in this
//   process wakes it at once; one queued elsewhere, or a retry coming due, is found within `restMs`. During DGII's
//   maintenance window it holds them instead (delivery.claimDueSends).
// - The scheduler's poller: the documents waiting for DGII's verdict whose next question is due. Cron ticks once a
//   minute, too slow for "fast at first", so this is a loop of its own.
import type { Logger } from '../../platform/observability/logger.js';
import { startClaimLoop, type ClaimLoop } from '../../platform/queue/claim-loop.js';
import { startWorkLoop } from '../../platform/work/work-engine.js';
import type { Delivery } from './delivery.js';

interface LoopDeps {
  delivery: Delivery;
  log: Logger;
  restMs: number;
  /** Documents in flight (SEND_CONCURRENCY): a scheduler asks about as many verdicts at once, since its questions
   * follow the sends. */
  concurrency: number;
}

export function startSender({ delivery, log, restMs, concurrency }: LoopDeps): ClaimLoop {
  return startClaimLoop({
    name: 'document send',
    claim: (limit) => delivery.claimDueSends(limit),
    work: (claimed) => delivery.sends.work(claimed),
    idOf: (claimed) => claimed.id,
    log,
    batchSize: concurrency,
    concurrency,
    restMs,
  });
}

export function startPoller({ delivery, log, restMs, concurrency }: LoopDeps): ClaimLoop {
  return startWorkLoop(delivery.polls, { name: 'verdict poll', log, batchSize: concurrency, concurrency, restMs });
}
