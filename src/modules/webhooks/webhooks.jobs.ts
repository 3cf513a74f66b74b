import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { defineJob } from '../../platform/queue/job.js';
import { recordExpiringCertificates } from './certificate-warnings.js';

/** Deliveries are not jobs (the workers' delivery loop claims them, dispatcher.ts); the daily certificate warning is. */
export function webhookJobs(deps: { db: Db; clock: Clock; environment: FiscalEnvironment }) {
  return {
    warnExpiringCertificates: defineJob<Record<string, never>>({
      name: 'webhooks.warn-expiring-certificates',
      retry: { retryLimit: 3, retryDelaySeconds: 60, retryBackoff: true, expireInSeconds: 300 },
      async handle(_payload, context) {
        const found = await recordExpiringCertificates(deps.db, deps.clock, deps.environment);
        context.log.info({ found }, 'certificates expiring within 30 days noted');
      },
    }),
  };
}
