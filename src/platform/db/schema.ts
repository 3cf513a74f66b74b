// Kysely's view of the tables. Migrations in /migrations are the source of truth; this mirrors them.
import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;
type Timestamp = ColumnType<Date, Date, Date>;

export interface CompaniesTable {
  id: string;
  rnc: string;
  legal_name: string;
  trade_name: string | null;
  address: string | null;
  municipality: string | null;
  province: string | null;
  plan: string;
  capabilities: string[];
  permissions: 'current' | 'suspended';
  suspended_reason: string | null;
  certification_enabled: boolean;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** The service segment of its receiver URLs, lower-case (migration 0008); null: its RNC. */
  receiver_segment: ColumnType<string | null, string | null | undefined, string | null>;
  /** The printed representation's branding (migration 0020): the logo as normalised PNG bytes (PGlite reads a
   * Uint8Array, PostgreSQL a Buffer), its sha256 and size, all four set or null together. */
  print_logo: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  print_logo_sha256: ColumnType<string | null, string | null | undefined, string | null>;
  print_logo_width: ColumnType<number | null, number | null | undefined, number | null>;
  print_logo_height: ColumnType<number | null, number | null | undefined, number | null>;
  print_format: ColumnType<'a4' | 'carta' | '80mm' | '58mm', 'a4' | 'carta' | '80mm' | '58mm' | undefined>;
  print_footer: ColumnType<string | null, string | null | undefined, string | null>;
  /** Accepted documents go to their buyers by themselves (migration 0024); off: only when asked (entregar). */
  delivery_automatic: ColumnType<boolean, boolean | undefined, boolean>;
  /** The e-mails' sender name (the From display name); null: the company's trade or legal name. */
  delivery_sender_name: ColumnType<string | null, string | null | undefined, string | null>;
  delivery_reply_to: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface CompanyCertificatesTable {
  id: string;
  company_id: string;
  status: 'active' | 'replaced';
  subject: string;
  issuer: string;
  serial_number: string;
  not_before: Date;
  not_after: Date;
  fingerprint_sha256: string;
  certificate_pem: string;
  chain_pem: string[];
  private_key_sealed: string;
  installed_at: CreatedAt;
  replaced_at: Date | null;
}

export interface ApiKeysTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  name: string;
  scopes: string[];
  key_hash: string;
  display_prefix: string;
  created_at: CreatedAt;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface CloudMessagesTable {
  id: string;
  label: string;
  company_id: string | null;
  received_at: CreatedAt;
}

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: Timestamp;
}

export interface SequenceRangesTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  ecf_type: string;
  first_number: number;
  last_number: number;
  next_number: number;
  /** `yyyy-mm-dd` (FechaVencimientoSecuencia); null for the types without one (32, 34). */
  expires_on: string | null;
  created_at: CreatedAt;
}

export interface SequenceBurnedTable {
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  encf: string;
  range_id: string;
  cause: string;
  burned_at: Date;
  annulment_id: string | null;
}

export interface DomainEventsTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  type: string;
  payload: ColumnType<unknown, string, string>;
  dedupe_key: string | null;
  occurred_at: Date;
  /** When webhooks fanned it out into deliveries (migration 0010); null until then. */
  dispatched_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

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

export interface DgiiMessageRow {
  codigo: string | null;
  valor: string;
}

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

export type AnnulmentStatus = 'pending' | 'sending' | 'accepted' | 'rejected' | 'failed';

export interface AnnulmentsTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  status: AnnulmentStatus;
  total: number;
  blob_key: string;
  /** Null on rows written before migration 0023. */
  sha256: string | null;
  size: number | null;
  attempts: Generated<number>;
  dgii_estado: string | null;
  dgii_codigo: string | null;
  dgii_messages: ColumnType<DgiiMessageRow[], string | undefined, string>;
  created_at: Date;
  updated_at: Date;
  final_at: Date | null;
}

export interface AnnulmentSpansTable {
  annulment_id: string;
  range_id: string;
  ecf_type: string;
  first_number: number;
  last_number: number;
  kind: 'burned' | 'unissued';
}

export interface DgiiSessionsTable {
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  token_encrypted: string;
  expires_at: Date;
  created_at: Date;
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
}

export type AllocationStatus = 'active' | 'exhausted' | 'cancelled' | 'expired';

export interface SequenceAllocationsTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  ecf_type: string;
  range_id: string;
  device_id: string;
  first_number: number;
  last_number: number;
  status: AllocationStatus;
  expires_at: Date | null;
  created_at: Date;
  ended_at: Date | null;
}

export interface SequenceAllocationUsesTable {
  allocation_id: string;
  encf: string;
  document_id: string | null;
  used_at: Date;
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

/** Blobs written for work that failed before recording them (migration 0026; platform/storage/abandoned-writes.ts). */
export interface AbandonedBlobsTable {
  key: string;
  cause: string;
  abandoned_at: Date;
}

/** The document an Idempotency-Key created, stored with it in one statement (migration 0025). */
export interface IdempotentCreationsTable {
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  key: string;
  document_id: string;
  created_at: Date;
}

/** DGII's public taxpayer registry (migration 0006). */
export interface TaxpayersTable {
  /** 9-digit RNC or 11-digit cédula. */
  tax_id: string;
  legal_name: string;
  trade_name: string | null;
  economic_activity: string | null;
  /** `yyyy-mm-dd`. */
  started_on: string | null;
  /** As DGII writes it: ACTIVO, SUSPENDIDO, DADO DE BAJA, ... */
  status: string;
  payment_regime: string | null;
  imported_at: Date;
}

/** Webhook endpoints, deliveries and attempts (migration 0010). */
export interface WebhookEndpointsTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  url: string;
  description: string | null;
  /** null: every event type. */
  event_types: string[] | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'exhausted';

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  event_id: string;
  event_type: string;
  body: string;
  status: WebhookDeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: Date | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  attempted_at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

/** e-CF sent to a company's receiver (migration 0008). */
export interface ReceivedDocumentsTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  issuer_rnc: string;
  encf: string;
  ecf_type: string | null;
  status: 'received' | 'not_received';
  /** CodigoMotivoNoRecibido of the ARECF answered (1–4); null when received. */
  reason_code: '1' | '2' | '3' | '4' | null;
  commercial_status: 'approved' | 'rejected' | null;
  issuer_name: string | null;
  rnc_comprador: string | null;
  fecha_emision: string | null;
  monto_total: string | null;
  total_itbis: string | null;
  received_at: Date;
  updated_at: Date;
}

export type ReceivedArtefactKind = 'received-xml' | 'arecf-xml' | 'acecf-xml';

export interface ReceivedArtefactsTable {
  received_document_id: string;
  kind: ReceivedArtefactKind;
  version: number;
  blob_key: string;
  sha256: string;
  size: number;
  content_type: string;
  created_at: Date;
}

export interface ReceivedDocumentEventsTable {
  id: Generated<number>;
  received_document_id: string;
  at: Date;
  type: string;
  status: string | null;
  cause: string;
}

/** The company's commercial response (ACECF) to a received e-CF (migration 0011). */
export interface ReceivedCommercialResponsesTable {
  received_document_id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  decision: 'approved' | 'rejected';
  /** DetalleMotivoRechazo; present exactly when rejected. */
  reason: string | null;
  /** FechaHoraAprobacionComercial as signed (dd-MM-yyyy HH:mm:ss, GMT-4). */
  fecha_hora_aprobacion: string;
  created_at: Date;
}

export type ResponseDeliveryTarget = 'issuer' | 'dgii';
export type ResponseDeliveryStatus = 'pending' | 'delivered' | 'failed' | 'exhausted';

/** One delivery of a commercial response: to the issuer's receiver or to DGII (migration 0011). */
export interface ReceivedResponseDeliveriesTable {
  received_document_id: string;
  target: ResponseDeliveryTarget;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  status: ResponseDeliveryStatus;
  attempts: Generated<number>;
  last_error: string | null;
  /** What the other side answered last (HTTP status; DGII's estado, codigo and mensajes). */
  answer: ColumnType<unknown, string | null, string | null>;
  target_url: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
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

export type CertificationProcessStatus = 'active' | 'failed' | 'cancelled' | 'completed';
export type CertificationStepStatus = 'locked' | 'open' | 'done' | 'failed';
export type CertificationCaseStatus = 'pending' | 'sent' | 'accepted' | 'rejected' | 'error';
export type CertificationCaseKind = 'ECF' | 'RFCE' | 'ACECF';

export interface CertificationProcessesTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  label: string;
  status: CertificationProcessStatus;
  failure: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  cancel_reason: string | null;
  previous_process_id: string | null;
  set_sha256: string;
  created_by_key: string | null;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
}

export interface CertificationStepsTable {
  process_id: string;
  number: number;
  key: string | null;
  mode: 'manual' | 'automatic';
  status: CertificationStepStatus;
  evidence: ColumnType<Record<string, unknown>, string | undefined, string>;
  opened_at: Date | null;
  done_at: Date | null;
}

export interface CertificationConfirmationsTable {
  id: string;
  process_id: string;
  step: number;
  key: string;
  note: string | null;
  api_key_id: string | null;
  correlation_id: string | null;
  carried_from: string | null;
  confirmed_at: Date;
}

export interface CertificationCasesTable {
  process_id: string;
  kind: CertificationCaseKind;
  case_key: string;
  ecf_type: string | null;
  step: 2 | 3 | 4;
  position: number;
  origin: 'set' | 'derived' | 'simulation';
  payload: ColumnType<Record<string, unknown>, string, never>;
  payload_sha256: string;
  depends_on: string | null;
  route: 'reception' | 'rfce' | 'approval';
  status: CertificationCaseStatus;
  waiting_for: string | null;
  estado: string | null;
  codigo: string | null;
  mensajes: ColumnType<DgiiMessageRow[], string | undefined, string>;
  document_id: string | null;
  signed_blob_key: string | null;
  signed_sha256: string | null;
  queued_at: Date | null;
  carried_from_process_id: string | null;
  sent_at: Date | null;
  verdict_at: Date | null;
  updated_at: Date;
}

export interface CertificationEventsTable {
  id: string;
  process_id: string;
  at: Date;
  subject: string;
  status: string;
  cause: string;
}

/** Work waiting to go out, one row per item until it settles (migration 0015; platform/work). */
export interface OutboundWorkTable {
  target: string;
  item_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  due_at: Date;
  lease_id: string | null;
  attempts: Generated<number>;
}

export interface Database {
  outbound_work: OutboundWorkTable;
  received_documents: ReceivedDocumentsTable;
  received_artefacts: ReceivedArtefactsTable;
  received_document_events: ReceivedDocumentEventsTable;
  received_commercial_responses: ReceivedCommercialResponsesTable;
  received_response_deliveries: ReceivedResponseDeliveriesTable;
  companies: CompaniesTable;
  company_certificates: CompanyCertificatesTable;
  api_keys: ApiKeysTable;
  cloud_messages: CloudMessagesTable;
  settings: SettingsTable;
  sequence_ranges: SequenceRangesTable;
  sequence_burned: SequenceBurnedTable;
  domain_events: DomainEventsTable;
  documents: DocumentsTable;
  document_deliveries: DocumentDeliveriesTable;
  document_artefacts: DocumentArtefactsTable;
  document_events: DocumentEventsTable;
  document_commercial_responses: DocumentCommercialResponsesTable;
  sequence_allocations: SequenceAllocationsTable;
  sequence_allocation_uses: SequenceAllocationUsesTable;
  idempotency_keys: IdempotencyKeysTable;
  idempotent_creations: IdempotentCreationsTable;
  abandoned_blobs: AbandonedBlobsTable;
  failed_jobs: FailedJobsTable;
  dgii_sessions: DgiiSessionsTable;
  annulments: AnnulmentsTable;
  annulment_spans: AnnulmentSpansTable;
  taxpayers: TaxpayersTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  certification_processes: CertificationProcessesTable;
  certification_steps: CertificationStepsTable;
  certification_confirmations: CertificationConfirmationsTable;
  certification_cases: CertificationCasesTable;
  certification_events: CertificationEventsTable;
  archive_findings: ArchiveFindingsTable;
  archive_passes: ArchivePassesTable;
  archive_verifier: ArchiveVerifierTable;
}

/** A defect of the fiscal archive (migration 0023); resolved when a later check of its key passes. */
export interface ArchiveFindingsTable {
  id: string;
  kind: string;
  severity: string;
  company_id: string | null;
  environment: 'TEST' | 'CERT' | 'PRODUCTION' | null;
  blob_key: string;
  owner: string | null;
  owner_id: string | null;
  artefact_kind: string | null;
  detail: string;
  first_seen_at: Date;
  last_seen_at: Date;
  resolved_at: Date | null;
}

export interface ArchivePassesTable {
  id: string;
  origin: 'rolling' | 'command';
  scope: ColumnType<Record<string, unknown>, string, string>;
  started_at: Date;
  completed_at: Date | null;
  /** The last key verified. */
  position: string | null;
  artefacts: Generated<number>;
  bytes: ColumnType<number, number | undefined, number>;
  stored_objects: Generated<number>;
  findings: Generated<number>;
  recorded_artefacts: number | null;
}

export interface ArchiveVerifierTable {
  id: number;
  /** With recent_after, the last artefact checked (its creation, then its key): the check of new ones resumes after it. */
  recent_after: Date;
  recent_key: Generated<string>;
}

export type { Generated };
