import { defineJob } from '../../platform/queue/job.js';
import type { Delivery } from './delivery.js';

/**
 * The send job. pg-boss retries it only when a worker crashed or threw; delivery schedules its own next attempts
 * (with backoff) in the transaction that records each outcome. The job expires after the delivery lease, so a
 * killed worker's document is taken up again.
 */
export function sendingJobs(deps: { delivery: () => Delivery }) {
  return {
    sendDocument: defineJob<{ documentId: string }>({
      name: 'document.send',
      retry: { retryLimit: 50, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
      concurrency: 32,
      async handle(payload) {
        await deps.delivery().attempt(payload.documentId);
      },
    }),
  };
}
