import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { Directory } from './directory-cache.js';
import { taxpayersJobs } from './taxpayers.jobs.js';
import { taxpayerRoutes } from './taxpayers.routes.js';
import { taxpayerSchemas } from './taxpayers.schema.js';
import { createTaxpayersService } from './taxpayers.service.js';

/** `directory`: DGII's, cached (directory-cache.ts), shared with the modules that deliver to other taxpayers. */
export function taxpayersModule(
  { config, db, clock }: Pick<Platform, 'config' | 'db' | 'clock'>,
  { directory }: { directory: Directory },
): ModuleParts {
  const { url, cron } = config.taxpayersImport;
  const jobs = taxpayersJobs({ db, clock, importUrl: url });
  return {
    schemas: taxpayerSchemas,
    routes: taxpayerRoutes(createTaxpayersService({ db, clock, directory })) as AppRoute[],
    jobs: Object.values(jobs),
    // DGII republishes its taxpayer listing daily; imported only when the operator configures where from.
    schedules: url === undefined ? [] : [{ job: jobs.importTaxpayers, cron }],
  };
}
