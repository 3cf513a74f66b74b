// The scheduler's poller: the claim loop (platform/queue/claim-loop.ts) over the documents waiting for DGII's
// verdict whose next question is due. Cron ticks once a minute, too slow for "fast at first", so this is a loop of
// its own. Documents are claimed with SKIP LOCKED and leased (sending.repo.ts claimDuePolls), so several schedulers
// can run it side by side, and one that dies leaves its documents due again when the lease runs out.
import type { Logger } from '../../platform/observability/logger.js';
import { startClaimLoop, type ClaimLoop } from '../../platform/queue/claim-loop.js';
import type { Delivery } from './delivery.js';

/** Questions to DGII one scheduler process asks at once: as many as the sender's sends, which they follow. */
const pollConcurrency = 32;

export function startPoller(deps: { delivery: Delivery; log: Logger; restMs: number }): ClaimLoop {
  const { delivery, log, restMs } = deps;
  return startClaimLoop({
    name: 'verdict poll',
    claim: (limit) => delivery.claimDuePolls(limit),
    work: (row) => delivery.poll(row),
    idOf: (row) => row.id,
    log,
    batchSize: pollConcurrency,
    concurrency: pollConcurrency,
    restMs,
  });
}
