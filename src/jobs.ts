// The typed registry of every background job, gathered from the modules that own them.
import type { Clock } from './platform/clock.js';
import type { FiscalEnvironment } from './config.js';
import type { Db } from './platform/db/database.js';
import type { AnyJob } from './platform/queue/job.js';
import { controlPlaneJobs } from './modules/control-plane/index.js';
import { sequenceJobs, type SequencesService } from './modules/sequences/index.js';
import { documentJobs } from './modules/documents/index.js';
import { taxpayersJobs } from './modules/taxpayers/index.js';
import { webhookJobs } from './modules/webhooks/index.js';

export function createJobs(deps: { db: Db; clock: Clock; taxpayersImportUrl?: string | undefined; sequences: () => SequencesService; environment: FiscalEnvironment; webhookRetentionMs: number}) {
  return { ...controlPlaneJobs(deps), ...documentJobs(deps), ...sequenceJobs(deps), ...taxpayersJobs({ db: deps.db, clock: deps.clock, importUrl: deps.taxpayersImportUrl }), ...webhookJobs({ db: deps.db, clock: deps.clock, environment: deps.environment, retentionMs: deps.webhookRetentionMs }) };
}

export type AppJobs = ReturnType<typeof createJobs>;

export function jobList(jobs: AppJobs): AnyJob[] {
  return Object.values(jobs);
}
