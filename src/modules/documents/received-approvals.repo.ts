import type { Selectable } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { DocumentCommercialResponsesTable, DocumentsTables } from './tables.js';
import type { Trx } from '../../platform/db/transact.js';

export type ReceivedApprovalRow = Selectable<DocumentCommercialResponsesTable>;

type Executor = Db<DocumentsTables> | Trx<DocumentsTables>;

export function receivedApprovalsOf(db: Executor, documentIds: readonly string[]): Promise<ReceivedApprovalRow[]> {
  if (documentIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('document_commercial_responses').selectAll().where('document_id', 'in', documentIds).execute();
}

/** Inserts the approval unless the document has one; true when this call inserted it. */
export async function insertReceivedApproval(trx: Trx<DocumentsTables>, row: ReceivedApprovalRow): Promise<boolean> {
  const inserted = await trx
    .insertInto('document_commercial_responses')
    .values(row)
    .onConflict((conflict) => conflict.column('document_id').doNothing())
    .returning('document_id')
    .executeTakeFirst();
  return inserted !== undefined;
}
