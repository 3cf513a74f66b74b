import type { Platform, ModuleParts } from '../module.js';
import type { DgiiClient } from '../../dgii/index.js';
import type { AppRoute } from '../../platform/http/route.js';
import { dgiiDirectory } from './dgii-directory.js';
import { taxpayersJobs } from './taxpayers.jobs.js';
import { taxpayerRoutes } from './taxpayers.routes.js';
import { taxpayerSchemas } from './taxpayers.schema.js';
import { createTaxpayersService } from './taxpayers.service.js';

export function taxpayersModule({
  config,
  db,
  clock,
  cache,
  dgii,
}: Pick<Platform, 'config' | 'db' | 'clock' | 'cache'> & { dgii: Pick<DgiiClient, 'directory'> }): ModuleParts {
  const { url, cron } = config.taxpayersImport;
  const jobs = taxpayersJobs({ db, clock, importUrl: url });
  return {
    schemas: taxpayerSchemas,
    routes: taxpayerRoutes(createTaxpayersService({ db, clock, cache, directory: dgiiDirectory(dgii) })) as AppRoute[],
    jobs: Object.values(jobs),
    // DGII republishes its taxpayer listing daily; imported only when the operator configures where from.
    schedules: url === undefined ? [] : [{ job: jobs.importTaxpayers, cron }],
  };
}
