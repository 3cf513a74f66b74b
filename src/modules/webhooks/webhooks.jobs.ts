import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { defineJob } from '../../platform/queue/job.js';
import { recordExpiringCertificates } from './certificate-warnings.js';
import { purgeWebhookHistory } from './history-purge.js';
import type { WebhooksTables } from './tables.js';

/**
 * Deliveries are not jobs (the workers' delivery loop claims them, dispatcher.ts); the daily certificate warning
 * and the daily purge of the history older than the retention are.
 */
export function webhookJobs(deps: {
  db: Db<WebhooksTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  retentionMs: number;
}) {
  return {
    warnExpiringCertificates: defineJob<Record<string, never>>({
      name: 'webhooks.warn-expiring-certificates',
      retry: { retryLimit: 3, retryDelaySeconds: 60, retryBackoff: true, expireInSeconds: 300 },
      async handle(_payload, context) {
        const found = await recordExpiringCertificates(deps.db, deps.clock, deps.environment);
        context.log.info({ found }, 'certificates expiring within 30 days noted');
      },
    }),
    purgeWebhookHistory: defineJob<Record<string, never>>({
      name: 'webhooks.purge-history',
      retry: { retryLimit: 3, retryDelaySeconds: 60, retryBackoff: true, expireInSeconds: 3_600 },
      async handle(_payload, context) {
        const before = new Date(deps.clock.now().getTime() - deps.retentionMs);
        const purged = await purgeWebhookHistory(deps.db, deps.environment, before);
        context.log.info({ ...purged, before: before.toISOString() }, 'purged webhook history');
      },
    }),
  };
}
