// pg-boss on the same database as the business rows, so a job can be enqueued inside the business
// transaction and commits or rolls back with it (research/stack.md, "Transactional outbox"). It runs the occasional
// jobs the schedules and the API start (purges, imports, certificate warnings, offline blocks expiring): work done
// inside the service. When a schedule falls due is the schedule keeper's to say (schedule-keeper.ts), not pg-boss's
// cron. Work that goes out and must get there once, with leases, counted attempts and backoff (documents to DGII,
// annulments, commercial responses, webhooks), is platform/work's instead: one row per waiting item, claimed in
// batches, its history recorded under the lease.
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import PgBoss from 'pg-boss';
import type { Db } from '../db/database.js';
import type { SqlExecutor } from '../db/sql-executor.js';
import type { Trx } from '../db/transact.js';
import { withTimeout } from '../timeout.js';
import { withCorrelationId } from '../observability/correlation.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { AnyJob, JobDefinition, JobEnvelope } from './job.js';
import { setUpQueues } from './queue-setup.js';
import { startScheduleKeeper, type ScheduleKeeper } from './schedule-keeper.js';

export interface Schedule {
  job: AnyJob;
  /** Five-field cron in America/Santo_Domingo time. */
  cron: string;
}

export interface EnqueueOptions {
  correlationId: string;
  /** Enqueue inside this transaction: the job exists only if the transaction commits. */
  transaction?: Trx | Db;
  startAfter?: Date;
  singletonKey?: string;
}

export interface Queue {
  /**
   * Registers the jobs and the schedules and, by role, works the jobs and keeps the schedules: called once, after
   * every module is built (their jobs need their services). Jobs are enqueued only after it.
   */
  run(work: { jobs: readonly AnyJob[]; schedules: readonly Schedule[] }): Promise<void>;
  enqueue<T>(job: JobDefinition<T>, payload: T, options: EnqueueOptions): Promise<string | null>;
  probe(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface QueueRoles {
  work: boolean;
  schedule: boolean;
}

export const scheduleTimeZone = 'America/Santo_Domingo';

/**
 * Queues of jobs that became outbound work (platform/work) and are deleted at start, with any job left in them: the
 * migration that moved their work (migrations/20261126_0015_outbound_work.ts and after) queued every item waiting.
 */
const retiredQueues = ['annulment.send', 'received.commercial_response.deliver'];

/** Jobs one fetch loop takes at a time (see the workers below). */
const maxBatch = 4;

/** How often a scheduler looks at the due times: a recurring job starts within this of its time. */
const scheduleTickMs = 5_000;

function transactionExecutor<T>(transaction: Transaction<T> | Kysely<T>): SqlExecutor {
  return {
    async executeSql(text, values) {
      const result = await transaction.executeQuery(CompiledQuery.raw(text, values));
      return { rows: result.rows };
    },
  };
}

/** Connects the queue (pg-boss creates or migrates its schema) without working any job yet: see Queue.run. */
export async function openQueue(options: {
  executor: SqlExecutor;
  /** The same database, for the schedule keeper's transactions. */
  db: Db;
  roles: QueueRoles;
  log: Logger;
  metrics: Metrics;
  /**
   * How often a supervising process fails jobs that ran past their expiry (a killed worker's stay `active` until
   * then) so their retries run, and archives old jobs; pg-boss's default, 120 s, when absent.
   */
  maintenanceIntervalSeconds?: number;
}): Promise<Queue> {
  const { executor, db, roles, log, metrics } = options;
  // pg-boss's statements and the job handlers it runs, while under way: stop waits for them (see stop).
  const underWay = new Set<Promise<unknown>>();
  const tracked = <T>(promise: Promise<T>): Promise<T> => {
    underWay.add(promise);
    const settled = () => underWay.delete(promise);
    promise.then(settled, settled);
    return promise;
  };
  const boss = new PgBoss({
    db: { executeSql: (text: string, values: unknown[]) => tracked(executor.executeSql(text, values)) },
    schema: 'pgboss',
    supervise: roles.work || roles.schedule,
    schedule: false,
    migrate: true,
    ...(options.maintenanceIntervalSeconds === undefined
      ? {}
      : { maintenanceIntervalSeconds: options.maintenanceIntervalSeconds }),
  });
  boss.on('error', (error) => {
    log.error({ err: error }, 'job queue error');
  });
  await boss.start();
  let keeper: ScheduleKeeper | undefined;

  return {
    async run({ jobs, schedules }) {
      await setUpQueues(boss, jobs, roles.work || roles.schedule ? retiredQueues : [], log);

      if (roles.work) {
        for (const job of jobs) {
          /**
           * One job; a failure is reported for this job alone, so a batch's other jobs still complete. It runs under
           * its correlation id (observability/correlation.ts): every line it logs carries it, and what it records and
           * queues is stored with it.
           */
          const runOne = (item: PgBoss.JobWithMetadata<JobEnvelope<never>>) =>
            withCorrelationId(item.data.correlationId, async () => {
              const jobLog = log.child({ job: job.name, jobId: item.id });
              try {
                await job.handle(item.data.payload, {
                  jobId: item.id,
                  correlationId: item.data.correlationId,
                  attempt: item.retryCount + 1,
                  log: jobLog,
                });
                metrics.jobsProcessed.inc({ job: job.name, outcome: 'completed' });
              } catch (error) {
                metrics.jobsProcessed.inc({ job: job.name, outcome: 'failed' });
                jobLog.warn({ err: error, attempt: item.retryCount + 1 }, 'job failed');
                await boss.fail(job.name, item.id, {
                  message: error instanceof Error ? error.message : String(error),
                });
              }
            });
          // A job's concurrency is spread over fetch loops taking small batches, run side by side; pg-boss completes
          // a batch's jobs that did not fail. A loop waits for its whole batch, so batches stay small: one slow job
          // holds back few others. pg-boss 10 rests a polling interval after every batch; a full batch asks for the
          // next at once instead.
          const concurrency = job.concurrency ?? 1;
          const batchSize = Math.min(maxBatch, concurrency);
          for (let loop = 0; loop < Math.ceil(concurrency / batchSize); loop++) {
            const worker: { id?: string } = {};
            worker.id = await boss.work<JobEnvelope<never>>(
              job.name,
              { batchSize, pollingIntervalSeconds: 0.5, includeMetadata: true },
              (items) =>
                tracked(
                  (async () => {
                    await Promise.all(items.map(runOne));
                    if (items.length === batchSize && worker.id !== undefined) boss.notifyWorker(worker.id);
                  })(),
                ),
            );
          }
        }
      }

      if (roles.schedule) {
        // Schedules left in pg-boss by a release that used its cron: none is kept there now, so none fires twice.
        for (const { name } of await boss.getSchedules()) await boss.unschedule(name);
        keeper = startScheduleKeeper({
          db,
          schedules: schedules.map((schedule) => ({ name: schedule.job.name, cron: schedule.cron })),
          timeZone: scheduleTimeZone,
          start: async (trx, schedule) => {
            const envelope: JobEnvelope<Record<string, never>> = {
              correlationId: `schedule:${schedule.name}`,
              payload: {},
            };
            await boss.send(schedule.name, envelope, { db: transactionExecutor(trx) });
          },
          log,
          tickMs: scheduleTickMs,
        });
      }
    },
    async enqueue(job, payload, enqueueOptions) {
      const envelope: JobEnvelope<typeof payload> = { correlationId: enqueueOptions.correlationId, payload };
      return boss.send(job.name, envelope, {
        ...(enqueueOptions.transaction === undefined ? {} : { db: transactionExecutor(enqueueOptions.transaction) }),
        ...(enqueueOptions.startAfter === undefined ? {} : { startAfter: enqueueOptions.startAfter }),
        ...(enqueueOptions.singletonKey === undefined ? {} : { singletonKey: enqueueOptions.singletonKey }),
      });
    },
    async probe(timeoutMs) {
      await withTimeout(executor.executeSql('select version from pgboss.version', []), timeoutMs, 'Job queue');
    },
    async stop() {
      await keeper?.stop();
      await boss.stop({ graceful: true, wait: true, close: false, timeout: 10_000 });
      // pg-boss 10 tells its workers to stop without waiting for a fetch under way, and waits only for jobs already
      // fetched: a fetch answered after stop resolved runs its job and completes or fails it (unawaited) later, on a
      // database the caller has closed by then (an unhandled "Cannot use a pool after calling end on the pool", the
      // job left active until it expires). So stop returns only once nothing of pg-boss's is under way: each
      // statement settled, each handler done, and a turn of the event loop for what they set off to begin.
      while (underWay.size > 0) {
        await Promise.allSettled([...underWay]);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}
