// A document's delivery to its buyer (document_deliveries, migration 0024): one row per document, opened when DGII
// accepts it (in the statement that records the verdict: send-state.repo.ts) or when entregar asks, and moved on by
// each attempt's settlement, in the transaction that settles its queue row (platform/work). The row is documents'
// (docs/architecture.md); modules/buyer-delivery attempts the deliveries and changes it through index.ts.
import type { Updateable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { AnyDb } from '../../platform/db/database.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import type { ArtefactRow, DeliveryRow, DocumentRow } from './documents.repo.js';
import type { DocumentDeliveriesTable, DocumentsTables } from './tables.js';

/** A delivery as an attempt needs it, read for a whole claim at once. */
export interface BuyerDeliveryItem {
  delivery: DeliveryRow;
  document: DocumentRow;
  /** The document's signed e-CF as archived (undefined: its row is gone, an archive fault). */
  signed: ArtefactRow | undefined;
  /** The last ARECF version kept (0: none yet); the next one kept is numbered after it. */
  lastArecfVersion: number;
}

/** The deliveries of these documents with what an attempt needs of each, by document id. */
export async function buyerDeliveryItems(db: AnyDb, ids: readonly string[]): Promise<Map<string, BuyerDeliveryItem>> {
  if (ids.length === 0) return new Map();
  const documentsDb = tablesOf<DocumentsTables>(db);
  const [deliveries, documents, artefacts] = await Promise.all([
    documentsDb.selectFrom('document_deliveries').selectAll().where('document_id', 'in', ids).execute(),
    documentsDb.selectFrom('documents').selectAll().where('id', 'in', ids).execute(),
    documentsDb
      .selectFrom('document_artefacts')
      .selectAll()
      .where('document_id', 'in', ids)
      .where('kind', 'in', ['signed-xml', 'arecf-xml'])
      .execute(),
  ]);
  const byId = new Map(documents.map((row) => [row.id, row]));
  const items = new Map<string, BuyerDeliveryItem>();
  for (const delivery of deliveries) {
    const document = byId.get(delivery.document_id);
    if (document === undefined) continue;
    const own = artefacts.filter((row) => row.document_id === document.id);
    const latest = (kind: string) =>
      own
        .filter((row) => row.kind === kind)
        .reduce<ArtefactRow | undefined>(
          (last, row) => (last === undefined || row.version > last.version ? row : last),
          undefined,
        );
    items.set(document.id, {
      delivery,
      document,
      signed: latest('signed-xml'),
      lastArecfVersion: latest('arecf-xml')?.version ?? 0,
    });
  }
  return items;
}

export async function updateBuyerDelivery(
  trx: AnyTrx,
  documentId: string,
  change: Updateable<DocumentDeliveriesTable>,
): Promise<void> {
  await tablesOf<DocumentsTables>(trx)
    .updateTable('document_deliveries')
    .set(change)
    .where('document_id', '=', documentId)
    .execute();
}

/** Opens the delivery again, as asked (entregar): pending, its count of attempts started again. */
export async function requestBuyerDelivery(
  trx: AnyTrx,
  input: {
    documentId: string;
    companyId: string;
    environment: FiscalEnvironment;
    address: string | null;
    at: Date;
  },
): Promise<void> {
  const reopened = {
    status: 'pending' as const,
    attempts: 0,
    last_error: null,
    reason: null,
    requested_at: input.at,
    requested_address: input.address,
    next_attempt_at: input.at,
    updated_at: input.at,
  };
  await tablesOf<DocumentsTables>(trx)
    .insertInto('document_deliveries')
    .values({
      document_id: input.documentId,
      company_id: input.companyId,
      environment: input.environment,
      channel: null,
      created_at: input.at,
      ...reopened,
    })
    .onConflict((conflict) => conflict.column('document_id').doUpdateSet(reopened))
    .execute();
}
