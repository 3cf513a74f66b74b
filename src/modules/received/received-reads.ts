// What other modules read of received documents (docs/architecture.md): they take any layer's database and read
// received's tables here, so no other module names them.
import type { Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { AnyDb } from '../../platform/db/database.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import type { ReceivedDocumentsTable, ReceivedTables } from './tables.js';

/** The e-CF the company received in this environment after `since`, in the order they came. */
export function receivedSince(
  db: AnyDb | AnyTrx,
  companyId: string,
  environment: FiscalEnvironment,
  since: Date,
): Promise<
  Pick<Selectable<ReceivedDocumentsTable>, 'id' | 'issuer_rnc' | 'encf' | 'status' | 'reason_code' | 'received_at'>[]
> {
  return tablesOf<ReceivedTables>(db)
    .selectFrom('received_documents')
    .select(['id', 'issuer_rnc', 'encf', 'status', 'reason_code', 'received_at'])
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('received_at', '>', since)
    .orderBy('received_at')
    .execute();
}
