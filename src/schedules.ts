// Every recurring job, in one list: the scheduler keeps these (src/app.ts binds each to the job its module
// defines), and the README's role table names them (test/roles.test.ts checks it against this list). Cron in
// America/Santo_Domingo time; the nightly purges start minutes apart so they do not contend.
import type { Config } from './config.js';
import type { AnyJob } from './platform/queue/job.js';
import type { Schedule } from './platform/queue/queue.js';

/** A job, by the name its module gives it, and when it runs. */
export interface Recurring {
  job: string;
  cron: string;
}

export function recurringJobs(config: Pick<Config, 'taxpayersImport'>): Recurring[] {
  const { url, cron } = config.taxpayersImport;
  return [
    { job: 'control-plane.purge-messages', cron: '17 3 * * *' },
    // Offline blocks past their expiry end within a minute (their unused numbers burned).
    { job: 'sequences.expire-allocations', cron: '* * * * *' },
    { job: 'documents.purge-idempotency-keys', cron: '41 3 * * *' },
    { job: 'webhooks.warn-expiring-certificates', cron: '23 6 * * *' },
    { job: 'webhooks.purge-history', cron: '53 3 * * *' },
    // DGII republishes its taxpayer listing daily; imported only when the operator configures where from.
    ...(url === undefined ? [] : [{ job: 'taxpayers.import', cron }]),
  ];
}

/** The list bound to the jobs the modules define: a schedule that names no job stops the start. */
export function schedulesOf(config: Pick<Config, 'taxpayersImport'>, jobs: readonly AnyJob[]): Schedule[] {
  return recurringJobs(config).map(({ job: name, cron }) => {
    const job = jobs.find((candidate) => candidate.name === name);
    if (job === undefined) throw new Error(`src/schedules.ts schedules ${name}, a job no module defines`);
    return { job, cron };
  });
}
