// Every migration, in order. Forward-only: a migration, once released, is never edited; a change is a new one.
import type { Migration } from 'kysely';
import * as foundation from './20261121_0001_foundation.js';
import * as sequences from './20261121_0002_sequences.js';
import * as documents from './20261121_0003_documents.js';
import * as allocationsIdempotency from './20261121_0004_allocations_idempotency.js';
import * as sending from './20261121_0005_sending.js';
import * as taxpayers from './20261121_0006_taxpayers.js';
import * as rfceArtefact from './20261121_0007_rfce_artefact.js';
import * as received from './20261121_0008_received.js';
import * as commercialApprovals from './20261121_0009_commercial_approvals.js';
import * as webhooks from './20261121_0010_webhooks.js';
import * as commercialResponses from './20261121_0011_commercial_responses.js';
import * as documentSends from './20261122_0012_document_sends.js';
import * as dropDocumentsPending from './20261122_0013_drop_documents_pending.js';
import * as certification from './20261126_0014_certification.js';
import * as outboundWork from './20261126_0015_outbound_work.js';
import * as outboundAcecf from './20261126_0016_outbound_acecf.js';
import * as outboundWebhooks from './20261126_0017_outbound_webhooks.js';
import * as outboundDocuments from './20261126_0018_outbound_documents.js';
import * as outboundOutbox from './20261126_0019_outbound_outbox.js';
import * as companyBranding from './20261126_0020_company_branding.js';
import * as documentContingency from './20261126_0021_document_contingency.js';
import * as timbreUrlColons from './20261126_0022_timbre_url_colons.js';
import * as archiveVerification from './20261127_0023_archive_verification.js';
import * as buyerDeliveries from './20261127_0024_buyer_deliveries.js';
import * as idempotentCreations from './20261128_0025_idempotent_creations.js';
import * as abandonedBlobs from './20261128_0026_abandoned_blobs.js';
import * as engineLeases from './20261128_0027_engine_leases.js';
import * as certificationWork from './20261129_0028_certification_work.js';
import * as documentIssueDates from './20261129_0029_document_issue_dates.js';
import * as correlationIds from './20261129_0030_correlation_ids.js';
import * as roleCopies from './20261129_0031_role_copies.js';

export const migrations: Record<string, Migration> = {
  '20261121_0001_foundation': foundation,
  '20261121_0002_sequences': sequences,
  '20261121_0003_documents': documents,
  '20261121_0004_allocations_idempotency': allocationsIdempotency,
  '20261121_0005_sending': sending,
  '20261121_0006_taxpayers': taxpayers,
  '20261121_0007_rfce_artefact': rfceArtefact,
  '20261121_0008_received': received,
  '20261121_0009_commercial_approvals': commercialApprovals,
  '20261121_0010_webhooks': webhooks,
  '20261121_0011_commercial_responses': commercialResponses,
  '20261122_0012_document_sends': documentSends,
  '20261122_0013_drop_documents_pending': dropDocumentsPending,
  '20261126_0014_certification': certification,
  '20261126_0015_outbound_work': outboundWork,
  '20261126_0016_outbound_acecf': outboundAcecf,
  '20261126_0017_outbound_webhooks': outboundWebhooks,
  '20261126_0018_outbound_documents': outboundDocuments,
  '20261126_0019_outbound_outbox': outboundOutbox,
  '20261126_0020_company_branding': companyBranding,
  '20261126_0021_document_contingency': documentContingency,
  '20261126_0022_timbre_url_colons': timbreUrlColons,
  '20261127_0023_archive_verification': archiveVerification,
  '20261127_0024_buyer_deliveries': buyerDeliveries,
  '20261128_0025_idempotent_creations': idempotentCreations,
  '20261128_0026_abandoned_blobs': abandonedBlobs,
  '20261128_0027_engine_leases': engineLeases,
  '20261129_0028_certification_work': certificationWork,
  '20261129_0029_document_issue_dates': documentIssueDates,
  '20261129_0030_correlation_ids': correlationIds,
  '20261129_0031_role_copies': roleCopies,
};
