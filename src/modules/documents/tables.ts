// The tables module documents owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.
import type { ColumnType, Generated } from 'kysely';
import type { DgiiMessageRow } from '../../platform/db/schema.js';

export type DocumentStatus =
  | 'signed'
  | 'queued'
  | 'sending'
  | 'in_process'
  | 'accepted'
  | 'accepted_conditional'
  | 'rejected'
  | 'send_failed'
  | 'not_found';

export type ArtefactKind = 'source-json' | 'source-xml' | 'signed-xml' | 'rfce-xml' | 'acecf-xml' | 'arecf-xml';

export interface DocumentsTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  ecf_type: string;
  encf: string;
  status: DocumentStatus;
  origin: 'json' | 'signed_xml' | 'certification';
  fecha_emision: string;
  /** FechaEmision as a date, yyyy-MM-dd; null when the text is not a real day (migration 0029). */
  issued_on: string | null;
  rnc_comprador: string | null;
  monto_total: string;
  total_itbis: string | null;
  security_code: string;
  fecha_hora_firma: string;
  timbre_url: string;
  range_id: string | null;
  warnings: ColumnType<unknown, string, string>;
  created_at: Date;
  updated_at: Date;
  send_route: SendRoute | null;
  send_attempts: Generated<number>;
  send_lease_id: string | null;
  send_lease_until: Date | null;
  /** When a worker may next take it to DGII (queued or sending only; migrations/20261122_0012_document_sends.ts). */
  send_due_at: Date | null;
  track_id: string | null;
  dgii_estado: string | null;
  dgii_codigo: string | null;
  dgii_messages: ColumnType<DgiiMessageRow[], string | undefined, string>;
  secuencia_utilizada: boolean | null;
  poll_count: Generated<number>;
  next_poll_at: Date | null;
  sent_at: Date | null;
  final_at: Date | null;
  /** A send attempt found DGII out of reach before DGII took it: the RI's contingency legend (migration 0021). */
  issued_in_contingency: Generated<boolean>;
}

/** reception: the e-CF goes to DGII's reception (trackId, polled); rfce: a type 32 under DOP 250,000 goes as an RFCE. */
export type SendRoute = 'reception' | 'rfce';

export interface FailedJobsTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  kind: string;
  document_id: string | null;
  reason: string;
  attempts: number;
  opened_at: Date;
  closed_at: Date | null;
  closed_because: string | null;
}

export interface DocumentArtefactsTable {
  document_id: string;
  kind: ArtefactKind;
  version: number;
  blob_key: string;
  sha256: string;
  size: number;
  content_type: string;
  created_at: Date;
}

/** The buyer's commercial answer (ACECF) to one of our e-CF; its bytes are the document's acecf-xml artefact. */
export interface DocumentCommercialResponsesTable {
  document_id: string;
  decision: 'approved' | 'rejected';
  reason: string | null;
  rnc_comprador: string;
  /** FechaHoraAprobacionComercial as the buyer wrote it (dd-MM-yyyy HH:mm:ss, GMT-4). */
  fecha_hora_aprobacion: string | null;
  acecf_sha256: string;
  received_at: Date;
}

export interface DocumentEventsTable {
  id: Generated<number>;
  document_id: string;
  at: Date;
  type: string;
  status: DocumentStatus | null;
  cause: string;
  /** The request's or work's that recorded it (migration 0030); null before. */
  correlation_id: string | null;
}

export interface IdempotencyKeysTable {
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  key: string;
  request_sha256: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_body: ColumnType<unknown, string | null, string | null>;
  created_at: Date;
  /** The process that holds an in-flight claim (migration 0025); null once done. */
  claimed_by: string | null;
  claimed_at: Date | null;
}

/** The document an Idempotency-Key created, stored with it in one statement (migration 0025). */
export interface IdempotentCreationsTable {
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  key: string;
  document_id: string;
  created_at: Date;
}

/** Where a document's delivery to its buyer stands (migration 0024). */
export type BuyerDeliveryStatus = 'pending' | 'delivered' | 'not_received' | 'failed' | 'skipped';

/** receiver: the buyer's electronic receiver (DGII's directory); email: CorreoComprador or an address asked for. */
export type BuyerDeliveryChannel = 'receiver' | 'email' | 'none';

export interface DocumentDeliveriesTable {
  document_id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  channel: BuyerDeliveryChannel | null;
  status: BuyerDeliveryStatus;
  attempts: Generated<number>;
  last_error: string | null;
  /** Why it ended as it did, in words (no channel, a duplicate acknowledged, automatic delivery off). */
  reason: string | null;
  /** When entregar asked for it (a company whose automatic delivery is off delivers only then). */
  requested_at: Date | null;
  /** An e-mail address asked for with entregar, instead of the buyer's. */
  requested_address: string | null;
  /** Where the last attempt went: the receiver's URL or the e-mail address. */
  target: string | null;
  arecf_estado: string | null;
  arecf_motivo: string | null;
  arecf_fecha_hora: string | null;
  /** The version of the document's arecf-xml artefact this delivery's ARECF is. */
  arecf_version: number | null;
  message_id: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface DocumentsTables {
  documents: DocumentsTable;
  document_artefacts: DocumentArtefactsTable;
  document_events: DocumentEventsTable;
  document_commercial_responses: DocumentCommercialResponsesTable;
  document_deliveries: DocumentDeliveriesTable;
  failed_jobs: FailedJobsTable;
  idempotency_keys: IdempotencyKeysTable;
  idempotent_creations: IdempotentCreationsTable;
}
