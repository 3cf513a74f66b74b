import { defineJob } from '../../platform/queue/job.js';
import type { AnnulmentsService } from './annulments.service.js';

/** Delivers an annulment's signed ANECF; the service schedules its own retries with each outcome. */
export function annulmentJobs(deps: { annulments: () => AnnulmentsService }) {
  return {
    sendAnnulment: defineJob<{ annulmentId: string }>({
      name: 'annulment.send',
      retry: { retryLimit: 20, retryDelaySeconds: 10, retryBackoff: true, expireInSeconds: 120 },
      concurrency: 4,
      async handle(payload) {
        await deps.annulments().deliver(payload.annulmentId);
      },
    }),
  };
}
