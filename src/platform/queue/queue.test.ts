import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../test/support/backends.js';
import { openDatabase, type DatabaseHandle } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { currentCorrelationId } from '../observability/correlation.js';
import { createLogger } from '../observability/logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { defineJob, type AnyJob, type JobContext } from './job.js';
import { openQueue, type Queue } from './queue.js';

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function queueSuite(label: string, target: () => Promise<{ handle: DatabaseHandle; drop: () => Promise<void> }>) {
  describe(`job queue on ${label}`, { timeout: 120_000 }, () => {
    let handle: DatabaseHandle;
    let drop: () => Promise<void>;
    let queue: Queue;
    let metrics: Metrics;
    const seen: { payload: { n: number }; context: JobContext; under: string | undefined }[] = [];
    let failuresLeft = 1;

    const record = defineJob<{ n: number }>({
      name: 'test.record',
      retry: { retryLimit: 0, retryDelaySeconds: 1, retryBackoff: false, expireInSeconds: 60 },
      async handle(payload, context) {
        await Promise.resolve();
        seen.push({ payload, context, under: currentCorrelationId() });
      },
    });
    const flaky = defineJob<{ n: number }>({
      name: 'test.flaky',
      retry: { retryLimit: 2, retryDelaySeconds: 1, retryBackoff: false, expireInSeconds: 60 },
      handle(payload, context) {
        if (failuresLeft > 0) {
          failuresLeft--;
          return Promise.reject(new Error('transient'));
        }
        seen.push({ payload, context, under: currentCorrelationId() });
        return Promise.resolve();
      },
    });

    before(async () => {
      ({ handle, drop } = await target());
      await migrateToLatest(handle.db);
      metrics = createMetrics();
      queue = await openQueue({
        executor: handle.executor,
        db: handle.db,
        roles: { work: true, schedule: true },
        log: createLogger('silent'),
        metrics,
      });
      await queue.run({ jobs: [record, flaky] as AnyJob[], schedules: [{ job: record, cron: '0 4 * * *' }] });
    });
    after(async () => {
      await queue.stop();
      await handle.close();
      await drop();
    });

    it('runs a job enqueued in a committed transaction, with its payload and correlation id', async () => {
      await handle.db.transaction().execute(async (trx) => {
        await trx.insertInto('settings').values({ key: 'with-job', value: '1', updated_at: new Date() }).execute();
        await queue.enqueue(record, { n: 1 }, { correlationId: 'corr-committed', transaction: trx });
      });
      await until('the committed job', () => seen.some((entry) => entry.payload.n === 1));
      const entry = seen.find((candidate) => candidate.payload.n === 1);
      assert.ok(entry);
      assert.equal(entry.context.correlationId, 'corr-committed');
      // What the job records, queues and logs is under it (observability/correlation.ts).
      assert.equal(entry.under, 'corr-committed');
      assert.equal(entry.context.attempt, 1);
    });

    it('never creates the job of a transaction that rolled back', async () => {
      await assert.rejects(
        handle.db.transaction().execute(async (trx) => {
          await trx.insertInto('settings').values({ key: 'rolled-back', value: '1', updated_at: new Date() }).execute();
          await queue.enqueue(record, { n: 2 }, { correlationId: 'corr-rolled-back', transaction: trx });
          throw new Error('business failure after enqueue');
        }),
        /business failure/,
      );
      const { rows } = await sql<{
        count: number;
      }>`select count(*) as count from pgboss.job where name = 'test.record' and data->>'correlationId' = 'corr-rolled-back'`.execute(
        handle.db,
      );
      assert.equal(rows[0]?.count, 0);
      await queue.enqueue(record, { n: 3 }, { correlationId: 'corr-after' });
      await until('a later job', () => seen.some((entry) => entry.payload.n === 3));
      assert.equal(
        seen.some((entry) => entry.payload.n === 2),
        false,
      );
    });

    it('retries a failing job by its policy and counts both outcomes', async () => {
      await queue.enqueue(flaky, { n: 4 }, { correlationId: 'corr-flaky' });
      await until('the retried job', () => seen.some((entry) => entry.payload.n === 4));
      assert.equal(seen.find((entry) => entry.payload.n === 4)?.context.attempt, 2);
      const text = await metrics.registry.metrics();
      assert.match(text, /ecf_jobs_processed_total\{job="test\.flaky",outcome="failed"\} 1/);
      assert.match(text, /ecf_jobs_processed_total\{job="test\.flaky",outcome="completed"\} 1/);
    });

    it('sets its queues up beside other processes starting at the same time', async () => {
      const refused: string[] = [];
      for (let round = 0; round < 3; round++) {
        // New jobs to make queues for, and a queue of a release before to delete (as processes of an upgrade find).
        const jobs = [1, 2, 3, 4].map((n) =>
          defineJob<never>({
            name: `test.together-${String(round)}-${String(n)}`,
            retry: { retryLimit: n, retryDelaySeconds: 1, retryBackoff: false, expireInSeconds: 60 },
            handle: () => Promise.resolve(),
          }),
        );
        await sql`select pgboss.create_queue('annulment.send', '{}'::json)`.execute(handle.db);
        const starting = await Promise.all(
          [1, 2, 3].map(() =>
            openQueue({
              executor: handle.executor,
              db: handle.db,
              roles: { work: true, schedule: false },
              log: createLogger('silent'),
              metrics: createMetrics(),
            }),
          ),
        );
        const set = await Promise.allSettled(starting.map((started) => started.run({ jobs, schedules: [] })));
        for (const result of set) if (result.status === 'rejected') refused.push(String(result.reason));
        await Promise.all(starting.map((started) => started.stop()));
        const { rows } = await sql<{ name: string; retry_limit: number }>`
          select name, retry_limit from pgboss.queue where name like ${`test.together-${String(round)}-%`} or name = 'annulment.send'
          order by name`.execute(handle.db);
        assert.deepEqual(
          rows,
          jobs.map((job) => ({ name: job.name, retry_limit: job.retry.retryLimit })),
        );
      }
      assert.deepEqual(refused, []);
    });

    it('keeps the schedules itself, in America/Santo_Domingo time, none in pg-boss', async () => {
      const keptRows = () =>
        sql<{
          job: string;
          due_at: Date;
          fired_at: Date | null;
        }>`select job, due_at, fired_at from schedule_runs`.execute(handle.db);
      await until('the schedule noted', async () => (await keptRows()).rows.length > 0);
      const { rows: kept } = await keptRows();
      // Noted at the last 04:00 in Santo Domingo (08:00 UTC, no daylight saving), not started for it.
      const due = new Date();
      due.setUTCHours(8, 0, 0, 0);
      if (due > new Date()) due.setUTCDate(due.getUTCDate() - 1);
      assert.deepEqual(kept, [{ job: 'test.record', due_at: due, fired_at: null }]);
      const { rows } = await sql`select name from pgboss.schedule`.execute(handle.db);
      assert.deepEqual(rows, []);
    });

    it('answers its probe', async () => {
      await queue.probe(2_000);
      // The answer is the queue's own table's: while pgboss.version is locked, the probe gets none in time.
      let locked!: () => void;
      let release!: () => void;
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const holding = handle.db.transaction().execute(async (trx) => {
        await sql`lock table pgboss.version in access exclusive mode`.execute(trx);
        locked();
        await held;
      });
      try {
        await isLocked;
        await assert.rejects(queue.probe(300), /^Error: Job queue did not answer within 300 ms$/);
      } finally {
        release();
        await holding;
      }
      await queue.probe(2_000);
    });
  });
}

queueSuite('the test back end', async () => {
  const database = await createTestDatabase();
  return { handle: await openDatabase(database.target), drop: () => database.drop() };
});

queueSuite('embedded PGlite', async () => ({
  handle: await openDatabase({ kind: 'pglite-memory' }),
  drop: () => Promise.resolve(),
}));
