// The job queues pg-boss keeps, one per job with its retry policy, made to match the jobs at every start. Processes
// that start together (several workers and schedulers of a release) set them up together, and pg-boss's statements
// for it can collide: creating two queues at once deadlocks (each a partition of pgboss.job with foreign keys to
// pgboss.queue), and a queue one process deletes is gone when another drops its table. Each step leaves the queues
// as they should be whoever made them, so the process that lost the collision sets up again, after a short wait.
import { setTimeout as sleep } from 'node:timers/promises';
import type PgBoss from 'pg-boss';
import type { Logger } from '../observability/logger.js';
import type { AnyJob } from './job.js';

/** What PostgreSQL says when processes setting up at once collide: deadlock, a dropped queue's table name gone
 * (pg-boss's delete_queue formats it), a queue or its table made by another meanwhile. */
const collisions = new Set(['40P01', '22004', '23505', '42P07']);

const attempts = 8;

function collided(error: unknown): boolean {
  return error instanceof Error && collisions.has(String((error as { code?: unknown }).code));
}

async function setUpOnce(boss: PgBoss, jobs: readonly AnyJob[], retired: readonly string[]): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((queue) => queue.name));
  for (const name of retired) if (existing.has(name)) await boss.deleteQueue(name);
  for (const job of jobs) {
    const policy = {
      name: job.name,
      retryLimit: job.retry.retryLimit,
      retryDelay: job.retry.retryDelaySeconds,
      retryBackoff: job.retry.retryBackoff,
      expireInSeconds: job.retry.expireInSeconds,
    };
    if (existing.has(job.name)) await boss.updateQueue(job.name, policy);
    else await boss.createQueue(job.name, policy);
  }
}

/** A queue for each job with its policy, and none of `retired` (deleted with any job left in it). */
export async function setUpQueues(
  boss: PgBoss,
  jobs: readonly AnyJob[],
  retired: readonly string[],
  log: Logger,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await setUpOnce(boss, jobs, retired);
      return;
    } catch (error) {
      if (attempt >= attempts || !collided(error)) throw error;
      log.info({ err: error, attempt }, 'another process set the job queues up at the same time; setting up again');
      await sleep(50 * attempt + Math.random() * 100 * attempt);
    }
  }
}
