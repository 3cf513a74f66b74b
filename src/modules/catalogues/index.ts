export { catalogueRoutes } from './catalogues.routes.js';
export { createCataloguesService, type CataloguesService } from './catalogues.service.js';
export { cataloguesModule } from './catalogues.module.js';
