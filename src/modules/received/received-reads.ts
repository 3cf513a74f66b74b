// What other modules read of received documents (docs/architecture.md): they take any layer's database and read
// received's tables here, so no other module names them.
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { AnyDb } from '../../platform/db/database.js';
import { inPeriod, newerThan, type PagePosition, type PeriodScope } from '../../platform/db/period-pages.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import type { ReceivedArtefactsTable, ReceivedDocumentsTable, ReceivedTables } from './tables.js';

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

/** How many e-CF the company received in the period (the audit export, archive/export.ts). */
export async function receivedInPeriodCount(db: AnyDb, scope: PeriodScope): Promise<number> {
  const row = await tablesOf<ReceivedTables>(db)
    .selectFrom('received_documents')
    .select(sql<string>`count(*)::text`.as('count'))
    .where(inPeriod(scope, 'received_at'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** A page of the e-CF the company received in the period, after `after` in (received_at, id) order. */
export function receivedInPeriodPage(
  db: AnyDb,
  scope: PeriodScope,
  after: PagePosition | undefined,
  limit: number,
): Promise<
  Pick<
    Selectable<ReceivedDocumentsTable>,
    | 'id'
    | 'issuer_rnc'
    | 'encf'
    | 'ecf_type'
    | 'status'
    | 'commercial_status'
    | 'rnc_comprador'
    | 'fecha_emision'
    | 'received_at'
  >[]
> {
  return tablesOf<ReceivedTables>(db)
    .selectFrom('received_documents')
    .select([
      'id',
      'issuer_rnc',
      'encf',
      'ecf_type',
      'status',
      'commercial_status',
      'rnc_comprador',
      'fecha_emision',
      'received_at',
    ])
    .where(inPeriod(scope, 'received_at'))
    .where(newerThan(after, 'received_at'))
    .orderBy('received_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The archived artefacts of these received documents, in (received document, kind, version) order. */
export function artefactsOfReceived(db: AnyDb, ids: readonly string[]): Promise<Selectable<ReceivedArtefactsTable>[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return tablesOf<ReceivedTables>(db)
    .selectFrom('received_artefacts')
    .select(['received_document_id', 'kind', 'version', 'blob_key', 'sha256', 'size', 'content_type', 'created_at'])
    .where('received_document_id', 'in', ids)
    .orderBy('received_document_id')
    .orderBy('kind')
    .orderBy('version')
    .execute();
}
