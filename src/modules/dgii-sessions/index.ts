export { dgiiSessionRoutes } from './dgii-sessions.routes.js';
export { createDgiiSessionsService, type DgiiSessionsService } from './dgii-sessions.service.js';
