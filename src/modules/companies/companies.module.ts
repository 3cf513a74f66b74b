import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import { companyRoutes } from './companies.routes.js';
import { companySchemas } from './companies.schema.js';
import { createCompaniesService, type CompaniesService } from './companies.service.js';

export function companiesModule({ db, clock, masterKey }: Platform): ModuleParts & { companies: CompaniesService } {
  const companies = createCompaniesService({ db, clock, masterKey });
  return {
    companies,
    schemas: companySchemas,
    routes: companyRoutes(companies) as AppRoute[],
    forgetCompany: (companyId) => {
      companies.forget(companyId);
    },
  };
}
