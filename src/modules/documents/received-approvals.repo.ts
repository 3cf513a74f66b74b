import type { Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { DocumentCommercialResponsesTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';
import type { DocumentRow } from './documents.repo.js';

export type ReceivedApprovalRow = Selectable<DocumentCommercialResponsesTable>;

type Executor = Db | Trx;

/** The company's document with this e-NCF in this environment (unique: documents' (company, environment, encf)). */
export function findDocumentByEncf(
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

export function receivedApprovalsOf(db: Executor, documentIds: readonly string[]): Promise<ReceivedApprovalRow[]> {
  if (documentIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('document_commercial_responses').selectAll().where('document_id', 'in', documentIds).execute();
}

/** Inserts the approval unless the document has one; true when this call inserted it. */
export async function insertReceivedApproval(trx: Trx, row: ReceivedApprovalRow): Promise<boolean> {
  const inserted = await trx
    .insertInto('document_commercial_responses')
    .values(row)
    .onConflict((conflict) => conflict.column('document_id').doNothing())
    .returning('document_id')
    .executeTakeFirst();
  return inserted !== undefined;
}
