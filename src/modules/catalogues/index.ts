export { catalogueRoutes } from './catalogues.routes.js';
export { createCataloguesService, type CataloguesService } from './catalogues.service.js';
export { cataloguesModule } from './catalogues.module.js';
export { ecfDocumentContractSchemas } from './ecf-contract.js';
export { ecfExample } from './ecf-examples.js';
