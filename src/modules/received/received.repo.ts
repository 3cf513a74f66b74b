import { sql, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import { olderThan } from '../../platform/db/older-than.js';
import type { Db } from '../../platform/db/database.js';
import { executePrepared } from '../../platform/db/prepared.js';
import type { ReceivedArtefactKind, ReceivedArtefactsTable, ReceivedDocumentEventsTable, ReceivedDocumentsTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';
import { tenantRow } from '../../platform/db/tenant-row.js';

export type ReceivedRow = Selectable<ReceivedDocumentsTable>;
export type ReceivedArtefactRow = Selectable<ReceivedArtefactsTable>;
export type ReceivedEventRow = Selectable<ReceivedDocumentEventsTable>;

type Executor = Db | Trx;

export function insertReceived(executor: Executor, row: ReceivedRow) {
  return executor.insertInto('received_documents').values(row);
}

export function insertArtefacts(executor: Executor, rows: readonly ReceivedArtefactRow[]) {
  return executor.insertInto('received_artefacts').values([...rows]);
}

export function insertEvent(executor: Executor, event: { receivedDocumentId: string; at: Date; type: string; status: string | null; cause: string }) {
  return executor.insertInto('received_document_events').values({ received_document_id: event.receivedDocumentId, at: event.at, type: event.type, status: event.status, cause: event.cause });
}

/**
 * Whether this company already received (Estado 0) this issuer's e-NCF. Asked once per reception: prepared, with the
 * status a literal so that the generic plan still reads the partial unique index (its predicate is that literal).
 */
export async function wasReceived(db: Executor, companyId: string, environment: FiscalEnvironment, issuerRnc: string, encf: string): Promise<boolean> {
  const query = db
    .selectFrom('received_documents')
    .select('id')
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('issuer_rnc', '=', issuerRnc)
    .where('encf', '=', encf)
    .where('status', '=', sql.lit('received'));
  const result = await executePrepared(db, query);
  return result.rows.length > 0;
}

export function findReceived(db: Executor, companyId: string, environment: FiscalEnvironment, id: string): Promise<ReceivedRow | undefined> {
  return db.selectFrom('received_documents').selectAll().where('id', '=', id).executeTakeFirst().then((row) => tenantRow(row, companyId, environment));
}

export interface ListFilter {
  issuerRnc?: string | undefined;
  ecfType?: string | undefined;
  status?: ReceivedRow['status'] | undefined;
  receivedFrom?: Date | undefined;
  receivedTo?: Date | undefined;
  limit: number;
  after: { createdAt: Date; id: string } | undefined;
}

export function listReceived(db: Db, companyId: string, environment: FiscalEnvironment, filter: ListFilter): Promise<ReceivedRow[]> {
  let query = db.selectFrom('received_documents').selectAll().where('company_id', '=', companyId).where('environment', '=', environment);
  if (filter.issuerRnc !== undefined) query = query.where('issuer_rnc', '=', filter.issuerRnc);
  if (filter.ecfType !== undefined) query = query.where('ecf_type', '=', filter.ecfType);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.receivedFrom !== undefined) query = query.where('received_at', '>=', filter.receivedFrom);
  if (filter.receivedTo !== undefined) query = query.where('received_at', '<', filter.receivedTo);
  const after = filter.after;
  if (after !== undefined) {
    query = query.where(olderThan(after, 'received_at'));
  }
  return query.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(filter.limit + 1).execute();
}

export function artefactsOf(db: Db, ids: readonly string[]): Promise<ReceivedArtefactRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('received_artefacts').selectAll().where('received_document_id', 'in', ids).orderBy('kind').orderBy('version').execute();
}

export function findArtefact(db: Db, id: string, kind: ReceivedArtefactKind): Promise<ReceivedArtefactRow | undefined> {
  return db.selectFrom('received_artefacts').selectAll().where('received_document_id', '=', id).where('kind', '=', kind).orderBy('version', 'desc').limit(1).executeTakeFirst();
}

/** A received document's timeline, oldest first. */
export function eventsOf(db: Db, id: string): Promise<ReceivedEventRow[]> {
  return db.selectFrom('received_document_events').selectAll().where('received_document_id', '=', id).orderBy('at').orderBy('id').execute();
}
