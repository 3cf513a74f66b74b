// What other modules read of received documents (docs/architecture.md): they take any layer's database and read
// received's tables here, so no other module names them.
import { sql, type RawBuilder, type Selectable } from 'kysely';
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

/**
 * The received documents' archived artefacts as a branch of archive's inventory (archive/inventory.repo.ts), a subquery of the caller's
 * statement with the inventory's columns in its order: the verifier reads all kinds as one keyset-paged list.
 * The document fields are those of the row's main XML only.
 */
export function receivedArtefactsInventory(): RawBuilder<unknown> {
  return sql`(select r.blob_key as key, r.sha256, r.size, 'received_document' as owner, r.received_document_id as owner_id,
    r.kind, d.company_id, d.environment, r.created_at, d.status, d.encf, d.ecf_type, d.issuer_rnc, d.fecha_emision,
    d.monto_total, null::text as fecha_hora_firma, null::text as security_code
  from received_artefacts r join received_documents d on d.id = r.received_document_id)`;
}
