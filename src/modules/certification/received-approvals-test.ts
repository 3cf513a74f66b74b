// The receiver's question to certification (modules/documents received-approvals.ts): is DGII's step-11 test of
// the company's approval receiver under way, so that an ACECF about a set e-NCF from DGII's test taxpayer is recorded
// instead of refused as a buyer mismatch (research/certification.md §1, "Step 11 in detail")?
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import * as repo from './certification.repo.js';
import type { CertificationTables } from './tables.js';

/**
 * Whether DGII's approval test may be under way for the company (step 10 or 11 open: DGII sends as soon as the portal's
 * button is clicked, which may be before step 10 is confirmed here) and `encf` is one of its set's
 * (received-approvals.ts).
 */
export function receivedApprovalTestOf(db: Db<CertificationTables>, environment: FiscalEnvironment) {
  return async (companyId: string, encf: string): Promise<boolean> => {
    if (environment !== 'CERT') return false;
    const process = await repo.activeProcess(db, companyId, environment);
    if (process === undefined) return false;
    const steps = await repo.stepsOf(db, process.id);
    if (!steps.some((step) => (step.number === 10 || step.number === 11) && step.status === 'open')) return false;
    return (await repo.casesOf(db, process.id)).some((row) => row.kind === 'ECF' && row.case_key.endsWith(encf));
  };
}
