import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { defineJob } from '../../platform/queue/job.js';
import type { DocumentsTables } from './tables.js';

/** Idempotency keys live at least 24 h (DESIGN §4); they are purged once twice that old. */
export const idempotencyKeepHours = 48;

export function documentJobs(deps: { db: Db<DocumentsTables>; clock: Clock }) {
  return {
    purgeIdempotencyKeys: defineJob<Record<string, never>>({
      name: 'documents.purge-idempotency-keys',
      retry: { retryLimit: 3, retryDelaySeconds: 60, retryBackoff: true, expireInSeconds: 300 },
      async handle(_payload, context) {
        const before = new Date(deps.clock.now().getTime() - idempotencyKeepHours * 3_600_000);
        const purged = await deps.db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
        // The key may name a new document once its first answer is forgotten.
        await deps.db.deleteFrom('idempotent_creations').where('created_at', '<', before).execute();
        context.log.info(
          { purged: Number(purged.numDeletedRows), before: before.toISOString() },
          'purged old idempotency keys',
        );
      },
    }),
  };
}
