// Where a company's receiver answers: the base URL DGII's directory and other taxpayers are given (clients append
// `/fe/...`). The routes serve it, the embedded sandbox registers it, and `ecf doctor` calls it.
import type { FiscalEnvironment } from '../../config.js';
import { environmentSegment } from '../../fiscal/environment.js';
import type { AnyDb } from '../../platform/db/database.js';
import { receiverOfCompany, serviceSegmentOf } from './receiver.repo.js';

/** Undefined when the company receives nothing here: there is no such company, or it is not entitled to receive. */
export async function receiverBaseOf(
  db: AnyDb,
  companyId: string,
  instanceBaseUrl: string,
  environment: FiscalEnvironment,
): Promise<string | undefined> {
  const row = await receiverOfCompany(db, companyId);
  if (row === undefined || !row.capabilities.includes('receiving')) return undefined;
  const base = instanceBaseUrl.replace(/\/+$/, '');
  return `${base}/${environmentSegment[environment]}/${serviceSegmentOf(row)}`;
}
