// `certificate.expiring`: a company's active signing certificate that runs out within 30 days, recorded once per
// certificate (and environment) by a daily job, for webhooks to deliver.
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import type { WebhooksTables } from './tables.js';
import { certificatesExpiringBy } from '../companies/index.js';

export const certificateWarningDays = 30;

/** Records the event for each active certificate expiring within the window; the number of certificates found. */
export async function recordExpiringCertificates(
  db: Db<WebhooksTables>,
  clock: Clock,
  environment: FiscalEnvironment,
): Promise<number> {
  const now = clock.now();
  const horizon = new Date(now.getTime() + certificateWarningDays * 86_400_000);
  const expiring = await certificatesExpiringBy(db, now, horizon);
  for (const certificate of expiring) {
    const daysLeft = Math.ceil((certificate.not_after.getTime() - now.getTime()) / 86_400_000);
    await recordDomainEvent(db, {
      companyId: certificate.company_id,
      environment,
      type: 'certificate.expiring',
      payload: { certificateId: certificate.id, notAfter: certificate.not_after.toISOString(), daysLeft },
      dedupeKey: `certificate.expiring:${certificate.id}:${environment}`,
      occurredAt: now,
    });
  }
  return expiring.length;
}
