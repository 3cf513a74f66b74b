export { allocationRoutes } from './allocations.routes.js';
export { sequenceRoutes } from './sequences.routes.js';
export { sequenceSchemas } from './sequences.schema.js';
export { createSequencesService, type SequencesService, type SequenceThresholds, type TakenNumber } from './sequences.service.js';
export type { ClaimedNumber } from './claim-number.js';
