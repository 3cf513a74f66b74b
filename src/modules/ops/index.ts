export { opsRoutes } from './ops.routes.js';
export type { Probe } from './readiness.js';
export { opsModule } from './ops.module.js';
