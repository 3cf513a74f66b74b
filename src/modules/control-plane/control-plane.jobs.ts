import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { defineJob } from '../../platform/queue/job.js';
import { purgeMessagesBefore } from './cloud-messages.repo.js';
import type { ControlPlaneTables } from './tables.js';

const keepDays = 30;

export function controlPlaneJobs(deps: { db: Db<ControlPlaneTables>; clock: Clock }) {
  return {
    purgeCloudMessages: defineJob<Record<string, never>>({
      name: 'control-plane.purge-messages',
      retry: { retryLimit: 3, retryDelaySeconds: 60, retryBackoff: true, expireInSeconds: 300 },
      async handle(_payload, context) {
        const before = new Date(deps.clock.now().getTime() - keepDays * 24 * 3_600_000);
        const purged = await purgeMessagesBefore(deps.db, before);
        context.log.info({ purged, before: before.toISOString() }, 'purged old control-plane message ids');
      },
    }),
  };
}
