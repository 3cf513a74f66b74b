import { defineJob } from '../../platform/queue/job.js';
import { defaultDeliveryPolicy, type Delivery } from './delivery.js';

/**
 * How long a send job may stay `active` before the queue fails it and retries it: a third longer than the delivery
 * lease (90 s → 120 s). A killed worker leaves its jobs active; the retry must find the document's lease run out,
 * or it could not take the document up, so the expiry outlasts the lease taken just after the job started.
 */
export function sendJobExpirySeconds(leaseMs: number): number {
  return Math.ceil((leaseMs * 4) / 3 / 1_000);
}

/**
 * The send job. pg-boss retries it only when a worker crashed or threw; delivery schedules its own next attempts
 * (with backoff) in the transaction that records each outcome. The job expires after the delivery lease, so a
 * killed worker's document is taken up again.
 */
export function sendingJobs(deps: { delivery: () => Delivery; leaseMs?: number }) {
  return {
    sendDocument: defineJob<{ documentId: string }>({
      name: 'document.send',
      retry: { retryLimit: 50, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: sendJobExpirySeconds(deps.leaseMs ?? defaultDeliveryPolicy.leaseMs) },
      concurrency: 32,
      async handle(payload) {
        await deps.delivery().attempt(payload.documentId);
      },
    }),
  };
}
