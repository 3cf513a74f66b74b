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
export {
  createTaxpayersService,
  type DirectoryEntry,
  type DirectoryLookup,
  type TaxpayersService,
} from './taxpayers.service.js';
export { taxpayersJobs } from './taxpayers.jobs.js';
export { runTaxpayersCommand, TaxpayersArgumentError, taxpayersUsage } from './taxpayers.command.js';
export { taxpayersModule } from './taxpayers.module.js';
