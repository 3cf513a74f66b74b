// The webhook history is kept for WEBHOOKS_RETENTION_DAYS: settled deliveries (their bodies and attempts) and the
// outbox events already fanned out would otherwise grow with every document for ever. Deliveries still waiting,
// events not yet fanned out and events that carry a dedupe key (once-only warnings) are never purged. Company by
// company and in batches, so each statement is short and walks an index.
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import { purgeDispatchedEvents, purgeSettledDeliveries } from './webhooks.repo.js';
import type { WebhooksTables } from './tables.js';
import { companyIds } from '../companies/index.js';

const batchSize = 5_000;

export interface PurgedHistory {
  deliveries: number;
  events: number;
}

export async function purgeWebhookHistory(
  db: Db<WebhooksTables>,
  environment: FiscalEnvironment,
  before: Date,
): Promise<PurgedHistory> {
  const purged: PurgedHistory = { deliveries: 0, events: 0 };
  for (const id of await companyIds(db)) {
    let deleted: number;
    do {
      deleted = await purgeSettledDeliveries(db, id, environment, before, batchSize);
      purged.deliveries += deleted;
    } while (deleted === batchSize);
    do {
      deleted = await purgeDispatchedEvents(db, id, environment, before, batchSize);
      purged.events += deleted;
    } while (deleted === batchSize);
  }
  return purged;
}
