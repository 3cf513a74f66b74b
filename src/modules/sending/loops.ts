// The two loops that move documents through DGII, each the claim loop of platform/queue/claim-loop.ts over rows that
// are their own jobs, claimed with SKIP LOCKED and leased (sending.repo.ts), so several processes run them side by
// side and one that dies leaves its documents due again when their lease runs out.
// - The workers' sender: the documents whose send is due, each claim one statement for up to a batch, each document
//   then sent by delivery. A document queued in this process wakes it at once; one queued elsewhere, or a retry
//   coming due, is found within `restMs`.
// - The scheduler's poller: the documents waiting for DGII's verdict whose next question is due. Cron ticks once a
//   minute, too slow for "fast at first", so this is a loop of its own.
import type { Logger } from '../../platform/observability/logger.js';
import { startClaimLoop, type ClaimLoop } from '../../platform/queue/claim-loop.js';
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
    claim: (limit) => delivery.claimDue(limit),
    work: (claimed) => delivery.send(claimed),
    idOf: (claimed) => claimed.row.id,
    log,
    batchSize: concurrency,
    concurrency,
    restMs,
  });
}

export function startPoller({ delivery, log, restMs, concurrency }: LoopDeps): ClaimLoop {
  return startClaimLoop({
    name: 'verdict poll',
    claim: (limit) => delivery.claimDuePolls(limit),
    work: (row) => delivery.poll(row),
    idOf: (row) => row.id,
    log,
    batchSize: concurrency,
    concurrency,
    restMs,
  });
}
