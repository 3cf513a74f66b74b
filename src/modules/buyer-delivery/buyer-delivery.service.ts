// Delivering a document to its buyer again, on demand (POST /documentos/:id/entregar): after a failure, to reach a
// buyer whose receiver is now listed, for a company whose automatic delivery is off, or by e-mail to another address.
// The delivery is opened again (its attempts counted from zero, its failed job closed) and queued, in one
// transaction; the workers do the rest. `reintentar` stays about DGII.
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { transact } from '../../platform/db/transact.js';
import { fail, ok, type Result } from '../../platform/result.js';
import type { WorkEngine } from '../../platform/work/work-engine.js';
import {
  buyerDeliveryFailedJobKind,
  closeFailedJobs,
  documentEventInsertStatement,
  findDocument,
  requestBuyerDelivery,
  type BuyerDeliveryItem,
  type DocumentsService,
} from '../documents/index.js';
import type { DocumentView } from '../documents/index.js';

export interface BuyerDeliveryService {
  deliver(
    companyId: string,
    documentId: string,
    request: { correo?: string | undefined },
  ): Promise<Result<DocumentView>>;
}

export function createBuyerDeliveryService(deps: {
  db: Db;
  clock: Clock;
  environment: FiscalEnvironment;
  documents: Pick<DocumentsService, 'get' | 'printableWithModel'>;
  engine: Pick<WorkEngine<BuyerDeliveryItem>, 'enqueue'>;
  queued: () => void;
}): BuyerDeliveryService {
  const { db, clock, environment, documents, engine } = deps;
  return {
    async deliver(companyId, documentId, request) {
      const row = await findDocument(db, companyId, environment, documentId);
      if (row === undefined) return fail('document_not_found', `No document ${documentId}.`);
      if (row.status !== 'accepted' && row.status !== 'accepted_conditional')
        return fail(
          'document_not_deliverable',
          `Only a document DGII accepted goes to its buyer; ${documentId} is ${row.status}.`,
        );
      const read = await documents.printableWithModel(companyId, documentId);
      if (!read.ok) return read;
      if (read.value.printable.reference?.modificationCode?.code === '4')
        return fail(
          'document_not_deliverable',
          `${row.encf} replaces an NCF issued in contingency (CodigoModificacion 4): it goes to DGII only (Informe Técnico §18).`,
        );
      const at = clock.now();
      const address = request.correo ?? null;
      const queued = await transact(db, async (trx) => {
        await requestBuyerDelivery(trx, { documentId, companyId, environment, address, at });
        await closeFailedJobs(trx, documentId, buyerDeliveryFailedJobKind, {
          at,
          because: 'delivery asked for again (entregar)',
        });
        await documentEventInsertStatement(trx, {
          documentId,
          at,
          type: 'delivery.requested',
          status: null,
          cause:
            address === null
              ? 'delivery to the buyer asked for (entregar)'
              : `delivery by e-mail to ${address} asked for (entregar)`,
        }).execute();
        await engine.enqueue(trx, [documentId], at);
        return ok(undefined);
      });
      if (!queued.ok) return queued;
      deps.queued();
      return documents.get(companyId, documentId);
    },
  };
}
