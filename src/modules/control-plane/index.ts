export { recordMessageOnce } from './cloud-messages.repo.js';
export { controlPlaneJobs } from './control-plane.jobs.js';
export { controlPlaneRoutes } from './control-plane.routes.js';
export { controlPlaneSchemas, eventTypes, type ControlPlaneEvent, type EventType } from './control-plane.schema.js';
export { createControlPlaneService, type ControlPlaneService } from './control-plane.service.js';
export { controlPlaneModule } from './control-plane.module.js';
export type { ControlPlaneTables } from './tables.js';
