export { documentViewRoutes } from './document-views.routes.js';
export { documentRoutes } from './documents.routes.js';
export { deliveryChannelNames, documentSchemas, DocumentView, documentViewExample } from './documents.schema.js';
export { createDocumentsService, type DocumentsService } from './documents.service.js';
export { createIdempotency, type Idempotency } from './idempotency.js';
export { createSignedXmlIntake, type SignedXmlIntake } from './signed-xml-intake.js';
// A buyer's ACECF about one of our e-CF, handed in by the receiver route (modules/receiver).
export { createReceivedApprovals, type ReceivedApprovals, type CommercialDecision } from './received-approvals.js';
export { documentJobs, idempotencyKeepHours } from './documents.jobs.js';
// The documents table's row and its timeline, for the modules that move a document on (sending).
export {
  documentsById,
  findArtefact,
  findDocument,
  insertArtefactsStatement,
  insertEventStatement as documentEventInsertStatement,
  type ArtefactRow,
  type DocumentRow,
} from './documents.repo.js';
export {
  artefactsOfDocuments,
  commercialResponsesSince,
  documentArtefactsInventory,
  documentUsingNumber,
  documentVerdicts,
  documentsInPeriodCount,
  documentsInPeriodPage,
  documentsNumbered,
  firstDocumentNumberedIn,
} from './document-reads.js';
// The send columns, changed as sending moves a document through DGII (one statement each, conditional).
export {
  changeDocumentsIf,
  groupedDocumentChanges,
  updateDocument,
  type ChangeRecords,
  type DocumentChange,
  type ExpectedState,
  type SendStateChange,
} from './send-state.repo.js';
// Sending's claims of the documents in its queues, each one statement with the documents' send columns it sets.
export {
  claimForSending,
  claimPolls,
  holdDueSends,
  pendingCounts,
  type ClaimedPollRow,
  type ClaimedRow,
  type ClaimedSendRow,
} from './send-claims.repo.js';
// A document's delivery to its buyer, for the module that delivers it (buyer-delivery).
export {
  buyerDeliveryItems,
  requestBuyerDelivery,
  updateBuyerDelivery,
  type BuyerDeliveryItem,
} from './delivery-state.repo.js';
export { buyerDeliveryFailedJobKind, recordBuyerDeliveriesDone, type BuyerDeliveryDone } from './delivery-done.repo.js';
// The failed jobs of a document's work (its send, its delivery to the buyer), for the modules that run it.
export { closeFailedJobs, listFailedJobs, openFailedJob, type FailedJobRow } from './failed-jobs.repo.js';
export { archiveNextArtefactVersion } from './artefacts.js';
export { documentsModule } from './documents.module.js';
export type { DocumentsTables } from './tables.js';
export type {
  ArtefactKind,
  BuyerDeliveryChannel,
  BuyerDeliveryStatus,
  DocumentDeliveriesTable,
  DocumentStatus,
  DocumentsTable,
  FailedJobsTable,
  SendRoute,
} from './tables.js';
