import type { ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { CompaniesService } from '../companies/index.js';
import { catalogueRoutes } from './catalogues.routes.js';
import { createCataloguesService } from './catalogues.service.js';

export function cataloguesModule({ companies }: { companies: CompaniesService }): ModuleParts {
  return { routes: catalogueRoutes(createCataloguesService({ companies })) as AppRoute[] };
}
