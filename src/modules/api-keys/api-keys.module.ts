import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { CompaniesService } from '../companies/index.js';
import { apiKeyRoutes } from './api-keys.routes.js';
import { apiKeySchemas } from './api-keys.schema.js';
import { createApiKeysService, type ApiKeysService } from './api-keys.service.js';

export function apiKeysModule(
  { db, clock, environment }: Platform,
  { companies }: { companies: CompaniesService },
): ModuleParts & { apiKeys: ApiKeysService } {
  const apiKeys = createApiKeysService({ db, clock, environment });
  return {
    apiKeys,
    schemas: apiKeySchemas,
    routes: apiKeyRoutes({ db, apiKeys, companies }) as AppRoute[],
    forgetCompany: (companyId) => {
      apiKeys.forgetCompany(companyId);
    },
  };
}
