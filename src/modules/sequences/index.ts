export { allocationRoutes } from './allocations.routes.js';
export { sequenceRoutes } from './sequences.routes.js';
export { sequenceSchemas } from './sequences.schema.js';
export {
  createSequencesService,
  type SequencesService,
  type SequenceThresholds,
  type TakenNumber,
} from './sequences.service.js';
export type { ClaimedNumber } from './claim-number.js';
export type { IssuedDocuments } from './issued-documents.js';
export { annulmentLeaseMs, annulmentSendTarget, createAnnulmentSendTarget } from './annulment-sending.js';
export { annulmentRoutes } from './annulments.routes.js';
export { annulmentSchemas } from './annulments.schema.js';
export { createAnnulmentsService, type AnnulmentsService } from './annulments.service.js';
export { sequenceJobs } from './sequences.jobs.js';
export { sequencesModule } from './sequences.module.js';
export {
  annulmentArtefactsInventory,
  annulmentsInPeriodCount,
  annulmentsInPeriodPage,
  spansOfAnnulments,
} from './annulment-reads.js';
export { rangesOfCompany } from './range-reads.js';
export type { SequencesTables } from './tables.js';
