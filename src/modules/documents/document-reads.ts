// What other modules read of documents (docs/architecture.md): they take any layer's database and read documents'
// tables here, so no other module names them.
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { AnyDb } from '../../platform/db/database.js';
import { inPeriod, newerThan, type PagePosition, type PeriodScope } from '../../platform/db/period-pages.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import type { DocumentArtefactsTable, DocumentsTable, DocumentsTables } from './tables.js';

/** The company's document numbered `encf` in this environment, if any: whether sequences may still give the number. */
export function documentUsingNumber(
  db: AnyDb | AnyTrx,
  companyId: string,
  environment: FiscalEnvironment,
  encf: string,
): Promise<{ id: string } | undefined> {
  return tablesOf<DocumentsTables>(db)
    .selectFrom('documents')
    .select('id')
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('encf', '=', encf)
    .executeTakeFirst();
}

/**
 * The first of the company's documents numbered in [from, to] (e-NCF text compares in number order: same type, same
 * width): a used number in a span sequences is asked to annul.
 */
export function firstDocumentNumberedIn(
  db: AnyDb | AnyTrx,
  companyId: string,
  environment: FiscalEnvironment,
  from: string,
  to: string,
): Promise<{ encf: string } | undefined> {
  return tablesOf<DocumentsTables>(db)
    .selectFrom('documents')
    .select('encf')
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('encf', '>=', from)
    .where('encf', '<=', to)
    .orderBy('encf')
    .limit(1)
    .executeTakeFirst();
}

/** The company's documents in this environment with these e-NCF, with their status and origin. */
export function documentsNumbered(
  db: AnyDb | AnyTrx,
  companyId: string,
  environment: FiscalEnvironment,
  encfs: readonly string[],
): Promise<{ id: string; encf: string; status: string; origin: string }[]> {
  if (encfs.length === 0) return Promise.resolve([]);
  return tablesOf<DocumentsTables>(db)
    .selectFrom('documents')
    .select(['id', 'encf', 'status', 'origin'])
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('encf', 'in', [...encfs])
    .execute();
}

/** What DGII said of these documents, as the sending pipeline recorded it. */
export function documentVerdicts(
  db: AnyDb | AnyTrx,
  ids: readonly string[],
): Promise<
  Pick<Selectable<DocumentsTable>, 'id' | 'encf' | 'status' | 'dgii_estado' | 'dgii_codigo' | 'dgii_messages'>[]
> {
  if (ids.length === 0) return Promise.resolve([]);
  return tablesOf<DocumentsTables>(db)
    .selectFrom('documents')
    .select(['id', 'encf', 'status', 'dgii_estado', 'dgii_codigo', 'dgii_messages'])
    .where('id', 'in', [...ids])
    .execute();
}

/** The buyers' commercial responses (ACECF) to the company's documents in this environment received after `since`. */
export function commercialResponsesSince(
  db: AnyDb | AnyTrx,
  companyId: string,
  environment: FiscalEnvironment,
  since: Date,
): Promise<{ encf: string; rnc_comprador: string; decision: 'approved' | 'rejected'; received_at: Date }[]> {
  return tablesOf<DocumentsTables>(db)
    .selectFrom('document_commercial_responses as r')
    .innerJoin('documents as d', 'd.id', 'r.document_id')
    .select(['d.encf', 'r.rnc_comprador', 'r.decision', 'r.received_at'])
    .where('d.company_id', '=', companyId)
    .where('d.environment', '=', environment)
    .where('r.received_at', '>', since)
    .execute();
}

/**
 * The documents' archived artefacts as a branch of archive's inventory (archive/inventory.repo.ts), a subquery of the caller's
 * statement with the inventory's columns in its order: the verifier reads all kinds as one keyset-paged list.
 * The document fields are those of the row's main XML only.
 */
export function documentArtefactsInventory(): RawBuilder<unknown> {
  return sql`(select a.blob_key as key, a.sha256, a.size, 'document' as owner, a.document_id as owner_id, a.kind,
    d.company_id, d.environment, a.created_at, d.status, d.encf, d.ecf_type, null::text as issuer_rnc,
    d.fecha_emision, d.monto_total, d.fecha_hora_firma, d.security_code
  from document_artefacts a join documents d on d.id = a.document_id)`;
}

/** How many documents the company created in the period (the audit export, archive/export.ts). */
export async function documentsInPeriodCount(db: AnyDb, scope: PeriodScope): Promise<number> {
  const row = await tablesOf<DocumentsTables>(db)
    .selectFrom('documents')
    .select(sql<string>`count(*)::text`.as('count'))
    .where(inPeriod(scope, 'created_at'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** A page of the documents the company created in the period, after `after` in (created_at, id) order. */
export function documentsInPeriodPage(
  db: AnyDb,
  scope: PeriodScope,
  after: PagePosition | undefined,
  limit: number,
): Promise<
  Pick<
    Selectable<DocumentsTable>,
    | 'id'
    | 'encf'
    | 'ecf_type'
    | 'status'
    | 'fecha_emision'
    | 'rnc_comprador'
    | 'created_at'
    | 'track_id'
    | 'dgii_estado'
  >[]
> {
  return tablesOf<DocumentsTables>(db)
    .selectFrom('documents')
    .select([
      'id',
      'encf',
      'ecf_type',
      'status',
      'fecha_emision',
      'rnc_comprador',
      'created_at',
      'track_id',
      'dgii_estado',
    ])
    .where(inPeriod(scope, 'created_at'))
    .where(newerThan(after, 'created_at'))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The archived artefacts of these documents, in (document, kind, version) order: each document's together. */
export function artefactsOfDocuments(db: AnyDb, ids: readonly string[]): Promise<Selectable<DocumentArtefactsTable>[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return tablesOf<DocumentsTables>(db)
    .selectFrom('document_artefacts')
    .select(['document_id', 'kind', 'version', 'blob_key', 'sha256', 'size', 'content_type', 'created_at'])
    .where('document_id', 'in', ids)
    .orderBy('document_id')
    .orderBy('kind')
    .orderBy('version')
    .execute();
}
