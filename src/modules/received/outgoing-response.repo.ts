import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type {
  ReceivedCommercialResponsesTable,
  ReceivedDocumentsTable,
  ReceivedResponseDeliveriesTable,
  ResponseDeliveryTarget,
  ReceivedTables,
} from './tables.js';
import type { Trx } from '../../platform/db/transact.js';
import { tenantRow } from '../../platform/db/tenant-row.js';

export type ResponseRow = Selectable<ReceivedCommercialResponsesTable>;
export type DeliveryRow = Selectable<ReceivedResponseDeliveriesTable>;

type Executor = Db<ReceivedTables> | Trx<ReceivedTables>;

/** The received document, locked: one commercial response is decided at a time per document. */
export function lockReceived(
  trx: Trx<ReceivedTables>,
  companyId: string,
  environment: ResponseRow['environment'],
  id: string,
) {
  return trx
    .selectFrom('received_documents')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
    .then((row) => tenantRow(row, companyId, environment));
}

export function receivedById(db: Db<ReceivedTables>, id: string) {
  return db.selectFrom('received_documents').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findResponse(executor: Executor, receivedId: string): Promise<ResponseRow | undefined> {
  return executor
    .selectFrom('received_commercial_responses')
    .selectAll()
    .where('received_document_id', '=', receivedId)
    .executeTakeFirst();
}

export function insertResponse(trx: Trx<ReceivedTables>, row: Insertable<ReceivedCommercialResponsesTable>) {
  return trx.insertInto('received_commercial_responses').values(row).execute();
}

export function insertDeliveries(trx: Trx<ReceivedTables>, rows: Insertable<ReceivedResponseDeliveriesTable>[]) {
  return trx.insertInto('received_response_deliveries').values(rows).execute();
}

export function deliveriesOf(executor: Executor, receivedId: string): Promise<DeliveryRow[]> {
  return executor
    .selectFrom('received_response_deliveries')
    .selectAll()
    .where('received_document_id', '=', receivedId)
    .orderBy('target', 'desc')
    .execute();
}

/** The deliveries to one target of these received documents, each with its received document. */
export async function deliveriesWithReceived(
  db: Db<ReceivedTables>,
  receivedIds: readonly string[],
  target: ResponseDeliveryTarget,
): Promise<{ row: DeliveryRow; received: Selectable<ReceivedDocumentsTable> }[]> {
  if (receivedIds.length === 0) return [];
  const [rows, received] = await Promise.all([
    db
      .selectFrom('received_response_deliveries')
      .selectAll()
      .where('received_document_id', 'in', [...receivedIds])
      .where('target', '=', target)
      .execute(),
    db
      .selectFrom('received_documents')
      .selectAll()
      .where('id', 'in', [...receivedIds])
      .execute(),
  ]);
  const byId = new Map(received.map((row) => [row.id, row]));
  return rows.flatMap((row) => {
    const document = byId.get(row.received_document_id);
    return document === undefined ? [] : [{ row, received: document }];
  });
}

export function lockDelivery(
  trx: Trx<ReceivedTables>,
  receivedId: string,
  target: ResponseDeliveryTarget,
): Promise<DeliveryRow | undefined> {
  return trx
    .selectFrom('received_response_deliveries')
    .selectAll()
    .where('received_document_id', '=', receivedId)
    .where('target', '=', target)
    .forUpdate()
    .executeTakeFirst();
}

export function updateDelivery(
  trx: Trx<ReceivedTables>,
  receivedId: string,
  target: ResponseDeliveryTarget,
  changes: Updateable<ReceivedResponseDeliveriesTable>,
) {
  return trx
    .updateTable('received_response_deliveries')
    .set(changes)
    .where('received_document_id', '=', receivedId)
    .where('target', '=', target)
    .execute();
}

export function setCommercialStatus(
  trx: Trx<ReceivedTables>,
  receivedId: string,
  status: 'approved' | 'rejected',
  at: Date,
) {
  return trx
    .updateTable('received_documents')
    .set({ commercial_status: status, updated_at: at })
    .where('id', '=', receivedId)
    .execute();
}
