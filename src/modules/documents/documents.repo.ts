import type { Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { ArtefactKind, DocumentArtefactsTable, DocumentEventsTable, DocumentsTable, DocumentStatus } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';

export type DocumentRow = Selectable<DocumentsTable>;
export type ArtefactRow = Selectable<DocumentArtefactsTable>;

type Executor = Db | Trx;

// The inserts come unexecuted: a caller executes one, or sends several together (platform/db/one-statement.ts).

export function insertDocument(executor: Executor, row: DocumentRow) {
  return executor.insertInto('documents').values({ ...row, warnings: JSON.stringify(row.warnings) });
}

/** At least one row. */
export function insertArtefacts(executor: Executor, rows: readonly ArtefactRow[]) {
  return executor.insertInto('document_artefacts').values([...rows]);
}

export function insertEvent(executor: Executor, event: { documentId: string; at: Date; type: string; status: DocumentStatus | null; cause: string }) {
  return executor.insertInto('document_events').values({ document_id: event.documentId, at: event.at, type: event.type, status: event.status, cause: event.cause });
}

export function findDocument(db: Db, companyId: string, environment: FiscalEnvironment, id: string): Promise<DocumentRow | undefined> {
  return db.selectFrom('documents').selectAll().where('id', '=', id).where('company_id', '=', companyId).where('environment', '=', environment).executeTakeFirst();
}

export function artefactsOf(db: Db, documentIds: readonly string[]): Promise<ArtefactRow[]> {
  if (documentIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('document_artefacts').selectAll().where('document_id', 'in', documentIds).orderBy('kind').orderBy('version').execute();
}

export function findArtefact(db: Db, documentId: string, kind: ArtefactKind, version: number | undefined): Promise<ArtefactRow | undefined> {
  let query = db.selectFrom('document_artefacts').selectAll().where('document_id', '=', documentId).where('kind', '=', kind);
  query = version === undefined ? query.orderBy('version', 'desc') : query.where('version', '=', version);
  return query.limit(1).executeTakeFirst();
}

export interface ListFilter {
  status?: DocumentStatus | undefined;
  ecfType?: string | undefined;
  limit: number;
  /** The last row of the previous page. */
  after?: { createdAt: Date; id: string } | undefined;
}

export function listDocuments(db: Db, companyId: string, environment: FiscalEnvironment, filter: ListFilter): Promise<DocumentRow[]> {
  let query = db.selectFrom('documents').selectAll().where('company_id', '=', companyId).where('environment', '=', environment);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.ecfType !== undefined) query = query.where('ecf_type', '=', filter.ecfType);
  const after = filter.after;
  if (after !== undefined) {
    query = query.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit + 1).execute();
}

export type EventRow = Selectable<DocumentEventsTable>;

/** A document's timeline, oldest first; the serial id breaks ties between events recorded at the same instant. */
export function eventsOf(db: Db, documentId: string): Promise<EventRow[]> {
  return db.selectFrom('document_events').selectAll().where('document_id', '=', documentId).orderBy('at').orderBy('id').execute();
}
