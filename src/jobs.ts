// The typed registry of every background job, gathered from the modules that own them.
import type { Clock } from './platform/clock.js';
import type { Db } from './platform/db/database.js';
import type { AnyJob } from './platform/queue/job.js';
import { controlPlaneJobs } from './modules/control-plane/index.js';

export function createJobs(deps: { db: Db; clock: Clock }) {
  return { ...controlPlaneJobs(deps) };
}

export type AppJobs = ReturnType<typeof createJobs>;

export function jobList(jobs: AppJobs): AnyJob[] {
  return Object.values(jobs);
}
