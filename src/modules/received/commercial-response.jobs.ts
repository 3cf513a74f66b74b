import type { ResponseDeliveryTarget } from '../../platform/db/schema.js';
import { defineJob } from '../../platform/queue/job.js';
import { defaultResponseDeliveryPolicy, type ResponseDelivery } from './commercial-response-delivery.js';

/**
 * One attempt of one delivery of a commercial response. pg-boss retries it only when a worker crashed or threw;
 * the delivery schedules its own next attempts (with backoff) in the transaction that records each outcome. The
 * job expires a third after the delivery lease, so a killed worker's delivery is taken up again.
 */
export function commercialResponseJobs(deps: { responseDelivery: () => ResponseDelivery; leaseMs?: number }) {
  const leaseMs = deps.leaseMs ?? defaultResponseDeliveryPolicy.leaseMs;
  return {
    deliverCommercialResponse: defineJob<{ receivedDocumentId: string; target: ResponseDeliveryTarget }>({
      name: 'received.commercial_response.deliver',
      retry: { retryLimit: 20, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: Math.ceil((leaseMs * 4) / 3 / 1_000) },
      concurrency: 8,
      async handle(payload) {
        await deps.responseDelivery().attempt(payload.receivedDocumentId, payload.target);
      },
    }),
  };
}
