// Every recurring job, in one list. Cron in America/Santo_Domingo time.
import type { Schedule } from './platform/queue/queue.js';
import type { AppJobs } from './jobs.js';

export function schedules(jobs: AppJobs): Schedule[] {
  return [{ job: jobs.purgeCloudMessages, cron: '17 3 * * *' }];
}
