import { defineJob } from '../../platform/queue/job.js';
import type { SequencesService } from './sequences.service.js';

export function sequenceJobs(deps: { sequences: SequencesService }) {
  return {
    /**
     * Offline blocks past their expiry are ended by this sweep (their unused numbers burned), so a range's
     * accounting is right even when nobody reads the company's blocks.
     */
    expireAllocations: defineJob<Record<string, never>>({
      name: 'sequences.expire-allocations',
      retry: { retryLimit: 3, retryDelaySeconds: 30, retryBackoff: true, expireInSeconds: 300 },
      async handle(_payload, context) {
        const companies = await deps.sequences.allocations.expireAllDue();
        if (companies > 0) context.log.info({ companies }, 'ended expired offline blocks');
      },
    }),
  };
}
