export { certificationRoutes } from './certification.routes.js';
export { certificationSchemas } from './certification.schema.js';
export { createCertificationService, type CertificationService } from './certification.service.js';
export type { ReceiverLinks } from './checklist.js';
export { certificationUsage, runCertificationCommand } from './certification.command.js';
export { createLane } from './lane.js';
export { approvalTestOf } from './received-approvals-test.js';
export { startLaneLoop } from './lane-loop.js';
export { createCaseChanges } from './case-changes.js';
