// Idempotency keys live at least 24 hours (DESIGN §4); the daily job purges those older than 48 and keeps the rest.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { documentJobs } from '../src/modules/documents/index.js';
import { fixedClock } from '../src/platform/clock.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('idempotency key purge', () => {
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  let app: TestApp;
  let companyId: string;

  before(async () => {
    app = await startTestApp({ clock });
    companyId = await app.provisionCompany();
  });
  after(() => app.close());

  it('deletes keys older than 48 hours and keeps younger ones', async () => {
    const { db } = app.application.database;
    const hoursAgo = (hours: number) => new Date(clock.now().getTime() - hours * 3_600_000);
    for (const [key, age] of [
      ['old', 49],
      ['day-old', 25],
      ['fresh', 1],
    ] as const) {
      await db
        .insertInto('idempotency_keys')
        .values({
          company_id: companyId,
          environment: 'TEST',
          key,
          request_sha256: 'x',
          state: 'done',
          response_status: 201,
          response_body: '{}',
          created_at: hoursAgo(age),
        })
        .execute();
    }
    const job = documentJobs({ db, clock }).purgeIdempotencyKeys;
    await job.handle({}, { jobId: 'job-1', correlationId: 'test', attempt: 1, log: pino({ level: 'silent' }) });
    const left = await db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('company_id', '=', companyId)
      .orderBy('key')
      .execute();
    assert.deepEqual(
      left.map((row) => row.key),
      ['day-old', 'fresh'],
    );
  });
});
