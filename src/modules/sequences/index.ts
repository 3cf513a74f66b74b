export { allocationRoutes } from './allocations.routes.js';
export { sequenceRoutes } from './sequences.routes.js';
export { sequenceSchemas } from './sequences.schema.js';
export { createSequencesService, encfOf, type SequencesService, type SequenceThresholds, type TakenNumber } from './sequences.service.js';
