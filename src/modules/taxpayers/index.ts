export { createProgress, type ProgressSink } from '../../platform/progress.js';
export {
  describeReport,
  importRegistry,
  RegistryLayoutError,
  RegistrySourceError,
  type ImportReport,
} from './registry-import.js';
export { taxpayerRoutes } from './taxpayers.routes.js';
export { taxpayerSchemas } from './taxpayers.schema.js';
export { createTaxpayersService, type TaxpayersService } from './taxpayers.service.js';
export { cachedDirectory, type Directory, type DirectoryAnswer } from './directory-cache.js';
export { taxpayersJobs } from './taxpayers.jobs.js';
export { runTaxpayersCommand, TaxpayersArgumentError, taxpayersUsage } from './taxpayers.command.js';
export { taxpayersModule } from './taxpayers.module.js';
export type { TaxpayersTables } from './tables.js';
