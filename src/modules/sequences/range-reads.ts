// What other modules read of sequences (docs/architecture.md): they take any layer's database and read sequences'
// tables here, so no other module names them.
import type { FiscalEnvironment } from '../../config.js';
import type { AnyDb } from '../../platform/db/database.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import type { SequencesTables } from './tables.js';

/**
 * The company's ranges in this environment, with what they have not handed out yet (from next_number on) and their
 * expiry (`yyyy-mm-dd`; null for the types without one).
 */
export function rangesOfCompany(
  db: AnyDb | AnyTrx,
  companyId: string,
  environment: FiscalEnvironment,
): Promise<
  {
    id: string;
    ecf_type: string;
    first_number: number;
    last_number: number;
    next_number: number;
    expires_on: string | null;
  }[]
> {
  return tablesOf<SequencesTables>(db)
    .selectFrom('sequence_ranges')
    .select(['id', 'ecf_type', 'first_number', 'last_number', 'next_number', 'expires_on'])
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .execute();
}
