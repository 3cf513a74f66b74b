export { capabilities, capabilityScopes, type Capability } from './capabilities.js';
export { companyRoutes } from './companies.routes.js';
export {
  CertificateInstall,
  CompanyProvision,
  CompanySuspension,
  CompanyUpdate,
  PermissionsChange,
  companySchemas,
} from './companies.schema.js';
export {
  createCompaniesService,
  type CompaniesService,
  type Change,
  type SigningIdentity,
} from './companies.service.js';
export { companiesModule } from './companies.module.js';
export type { CompaniesTables } from './tables.js';
export {
  certificatesExpiringBy,
  companyByRncOrId,
  companyBySegment,
  companyIdByIdOrRnc,
  companyIds,
  companyPermissionsOf,
  companyRncOf,
  companySummary,
  lockCompanyRow,
  receiverOfCompany,
  receiverSegmentOf,
  type ReceiverCompanyRow,
} from './company-reads.js';
