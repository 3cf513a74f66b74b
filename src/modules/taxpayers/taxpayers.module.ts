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
  const jobs = taxpayersJobs({ db, clock, importUrl: config.taxpayersImport.url });
  return {
    schemas: taxpayerSchemas,
    routes: taxpayerRoutes(createTaxpayersService({ db, clock, directory })) as AppRoute[],
    jobs: Object.values(jobs),
  };
}
