import { sql, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { AnyDb, Db } from '../../platform/db/database.js';
import { executePrepared } from '../../platform/db/prepared.js';
import type {
  DocumentDeliveriesTable,
  ArtefactKind,
  DocumentArtefactsTable,
  DocumentEventsTable,
  DocumentsTable,
  DocumentStatus,
  DocumentsTables,
} from './tables.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx, Trx } from '../../platform/db/transact.js';
import { tenantRow } from '../../platform/db/tenant-row.js';
import { correlationIdNow } from '../../platform/observability/correlation.js';

export type DocumentRow = Selectable<DocumentsTable>;
export type ArtefactRow = Selectable<DocumentArtefactsTable>;

type Executor = Db<DocumentsTables> | Trx<DocumentsTables>;

// The inserts come unexecuted: a caller executes one, or sends several together (platform/db/one-statement.ts).

/** The columns sending fills in (modules/sending); a new document has none of them yet. */
type SendingColumn =
  | 'send_route'
  | 'send_attempts'
  | 'send_lease_id'
  | 'send_lease_until'
  | 'send_due_at'
  | 'track_id'
  | 'dgii_estado'
  | 'dgii_codigo'
  | 'dgii_messages'
  | 'secuencia_utilizada'
  | 'poll_count'
  | 'next_poll_at'
  | 'sent_at'
  | 'final_at'
  | 'issued_in_contingency';
export type NewDocument = Omit<DocumentRow, SendingColumn>;

export const notYetSent: Pick<DocumentRow, SendingColumn> = {
  send_route: null,
  send_attempts: 0,
  send_lease_id: null,
  send_lease_until: null,
  send_due_at: null,
  track_id: null,
  dgii_estado: null,
  dgii_codigo: null,
  dgii_messages: [],
  secuencia_utilizada: null,
  poll_count: 0,
  next_poll_at: null,
  sent_at: null,
  final_at: null,
  issued_in_contingency: false,
};

export function insertDocumentStatement(executor: Executor, row: NewDocument) {
  const {
    id,
    company_id,
    environment,
    ecf_type,
    encf,
    status,
    origin,
    fecha_emision,
    issued_on,
    rnc_comprador,
    monto_total,
    total_itbis,
    security_code,
    fecha_hora_firma,
    timbre_url,
    range_id,
    warnings,
    created_at,
    updated_at,
  } = row;
  return executor.insertInto('documents').values({
    id,
    company_id,
    environment,
    ecf_type,
    encf,
    status,
    origin,
    fecha_emision,
    issued_on,
    rnc_comprador,
    monto_total,
    total_itbis,
    security_code,
    fecha_hora_firma,
    timbre_url,
    range_id,
    warnings: JSON.stringify(warnings),
    created_at,
    updated_at,
  });
}

/** At least one row. */
export function insertArtefactsStatement(executor: Executor, rows: readonly ArtefactRow[]) {
  return executor.insertInto('document_artefacts').values([...rows]);
}

/**
 * A document's timeline entry, with the correlation id under way; other modules (sending, buyer-delivery) record
 * theirs with it, through index.ts.
 */
export function insertEventStatement(
  executor: AnyDb | AnyTrx,
  event: { documentId: string; at: Date; type: string; status: DocumentStatus | null; cause: string },
) {
  return tablesOf<DocumentsTables>(executor).insertInto('document_events').values({
    document_id: event.documentId,
    at: event.at,
    type: event.type,
    status: event.status,
    cause: event.cause,
    correlation_id: correlationIdNow(),
  });
}

export async function findDocument(
  db: AnyDb | AnyTrx,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<DocumentRow | undefined> {
  const [row] = await documentsById(db, [id]);
  return tenantRow(row, companyId, environment);
}

/**
 * Documents by id, whatever their tenant (check it with tenantRow), in one statement whose text does not vary with
 * how many: for one read, and for reads asked one at a time and batched by platform/group-commit.ts. Each id's row,
 * or undefined.
 */
export async function documentsById(db: AnyDb | AnyTrx, ids: readonly string[]): Promise<(DocumentRow | undefined)[]> {
  const rows = await executePrepared(
    db,
    tablesOf<DocumentsTables>(db)
      .selectFrom('documents')
      .selectAll()
      .where(sql<boolean>`id = any(${ids as string[]}::text[])`),
  );
  const byId = new Map(rows.rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id));
}

export function artefactsOf(db: Db<DocumentsTables>, documentIds: readonly string[]): Promise<ArtefactRow[]> {
  if (documentIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('document_artefacts')
    .selectAll()
    .where('document_id', 'in', documentIds)
    .orderBy('kind')
    .orderBy('version')
    .execute();
}

export function findArtefact(
  db: Db<DocumentsTables>,
  documentId: string,
  kind: ArtefactKind,
  version: number | undefined,
): Promise<ArtefactRow | undefined> {
  let query = db
    .selectFrom('document_artefacts')
    .selectAll()
    .where('document_id', '=', documentId)
    .where('kind', '=', kind);
  query = version === undefined ? query.orderBy('version', 'desc') : query.where('version', '=', version);
  return query.limit(1).executeTakeFirst();
}

export type DeliveryRow = Selectable<DocumentDeliveriesTable>;

/** The deliveries to their buyers of these documents (written by modules/buyer-delivery). */
export function deliveriesOf(db: Db<DocumentsTables>, documentIds: readonly string[]): Promise<DeliveryRow[]> {
  if (documentIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('document_deliveries').selectAll().where('document_id', 'in', documentIds).execute();
}

export type EventRow = Selectable<DocumentEventsTable>;

/** A document's timeline, oldest first; the serial id breaks ties between events recorded at the same instant. */
export function eventsOf(db: Db<DocumentsTables>, documentId: string): Promise<EventRow[]> {
  return db
    .selectFrom('document_events')
    .selectAll()
    .where('document_id', '=', documentId)
    .orderBy('at')
    .orderBy('id')
    .execute();
}

/** The company's document numbered `encf` in this environment (the unique key of a number's use). */
export function findByEncf(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  encf: string,
): Promise<DocumentRow | undefined> {
  return db
    .selectFrom('documents')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('encf', '=', encf)
    .executeTakeFirst();
}
