// The workers' sender: the claim loop (platform/queue/claim-loop.ts) over the documents whose send is due, each
// claim one statement for up to a batch (sending.repo.ts claimForSending), each document then sent by delivery.
// A document queued in this process wakes it at once; one queued elsewhere, or a retry coming due, is found within
// `restMs`.
import type { Logger } from '../../platform/observability/logger.js';
import { startClaimLoop, type ClaimLoop } from '../../platform/queue/claim-loop.js';
import type { Delivery } from './delivery.js';

/** Documents one worker process talks to DGII about at once. */
export const sendConcurrency = 32;

export function startSender(deps: { delivery: Delivery; log: Logger; restMs: number }): ClaimLoop {
  const { delivery, log, restMs } = deps;
  return startClaimLoop({
    name: 'document send',
    claim: (limit) => delivery.claimDue(limit),
    work: (claimed) => delivery.send(claimed),
    idOf: (claimed) => claimed.row.id,
    log,
    batchSize: sendConcurrency,
    concurrency: sendConcurrency,
    restMs,
  });
}
