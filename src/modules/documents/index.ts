export { documentRoutes } from './documents.routes.js';
export { documentSchemas } from './documents.schema.js';
export { createDocumentsService, type DocumentsService } from './documents.service.js';
