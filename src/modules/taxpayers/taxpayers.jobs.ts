import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { defineJob } from '../../platform/queue/job.js';
import { importRegistry } from './registry-import.js';
import type { TaxpayersTables } from './tables.js';

export function taxpayersJobs(deps: { db: Db<TaxpayersTables>; clock: Clock; importUrl: string | undefined }) {
  return {
    importTaxpayers: defineJob<Record<string, never>>({
      name: 'taxpayers.import',
      // One retry an hour later: the listing is published daily and a failed download is usually DGII's CDN.
      retry: { retryLimit: 1, retryDelaySeconds: 3_600, retryBackoff: false, expireInSeconds: 3 * 3_600 },
      async handle(_payload, context) {
        if (deps.importUrl === undefined) {
          context.log.info('no TAXPAYERS_IMPORT_URL configured; nothing to import');
          return;
        }
        const report = await importRegistry({ db: deps.db, clock: deps.clock }, deps.importUrl);
        const { rejectedByReason, ...counts } = report;
        context.log.info({ ...counts, rejectedByReason }, 'taxpayer registry imported');
      },
    }),
  };
}
