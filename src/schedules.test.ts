import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from './config.js';
import { defineJob, type AnyJob } from './platform/queue/job.js';
import { recurringJobs, schedulesOf } from './schedules.js';

const jobNamed = (name: string): AnyJob =>
  defineJob<never>({
    name,
    retry: { retryLimit: 0, retryDelaySeconds: 1, retryBackoff: false, expireInSeconds: 1 },
    handle: () => Promise.resolve(),
  });

describe('src/schedules.ts', () => {
  const listingUrl = 'https://dgii.gov.do/app/WebApps/Consultas/RNC/DGII_RNC.zip';

  it('schedules the taxpayer import only when TAXPAYERS_IMPORT_URL is set, at TAXPAYERS_IMPORT_CRON', () => {
    const named = (env: Record<string, string>) => recurringJobs(parseConfig(env)).map((schedule) => schedule.job);
    assert.ok(!named({}).includes('taxpayers.import'));
    const configured = parseConfig({ TAXPAYERS_IMPORT_URL: listingUrl, TAXPAYERS_IMPORT_CRON: '0 5 * * 1-5' });
    assert.deepEqual(
      recurringJobs(configured).find((schedule) => schedule.job === 'taxpayers.import'),
      { job: 'taxpayers.import', cron: '0 5 * * 1-5' },
    );
  });

  it('binds each schedule to the job of that name, and refuses one no module defines', () => {
    const config = parseConfig({});
    const jobs = recurringJobs(config).map((schedule) => jobNamed(schedule.job));
    assert.deepEqual(
      schedulesOf(config, jobs).map((schedule) => schedule.job),
      jobs,
    );
    assert.throws(() => schedulesOf(config, jobs.slice(1)), /schedules control-plane\.purge-messages, a job no module/);
  });
});
