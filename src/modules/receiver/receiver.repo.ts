// The receiver keeps no table of its own: the companies it answers for are read through companies' index.ts.
export { companyByRncOrId, companyBySegment, receiverOfCompany, type ReceiverCompanyRow } from '../companies/index.js';

/** The service segment that names a company's receiver: companyBySegment's rule, the other way round. */
export function serviceSegmentOf(company: { rnc: string; receiver_segment: string | null }): string {
  return company.receiver_segment ?? company.rnc;
}
