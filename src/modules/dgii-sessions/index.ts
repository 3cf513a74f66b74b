export { dgiiSessionRoutes } from './dgii-sessions.routes.js';
export { createDgiiSessionsService, type DgiiSessionsService } from './dgii-sessions.service.js';
export { dgiiSessionsModule } from './dgii-sessions.module.js';
export { sessionTokenSealing } from './token-sealing.js';
export type { DgiiSessionsTables } from './tables.js';
