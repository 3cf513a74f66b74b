// Every recurring job, in one list. Cron in America/Santo_Domingo time.
import type { Schedule } from './platform/queue/queue.js';
import type { AppJobs } from './jobs.js';

export function schedules(jobs: AppJobs, taxpayersImport?: { url: string | undefined; cron: string }): Schedule[] {
  return [
    { job: jobs.purgeCloudMessages, cron: '17 3 * * *' },
    { job: jobs.purgeIdempotencyKeys, cron: '41 3 * * *' },
    { job: jobs.expireAllocations, cron: '* * * * *' },
    { job: jobs.warnExpiringCertificates, cron: '23 6 * * *' },
    { job: jobs.purgeWebhookHistory, cron: '53 3 * * *' },
    // DGII republishes its taxpayer listing daily; imported only when the operator configures where from.
    ...(taxpayersImport?.url === undefined ? [] : [{ job: jobs.importTaxpayers, cron: taxpayersImport.cron }]),
  ];
}
