// The tables module received owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.
import type { ColumnType, Generated } from 'kysely';

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
  /** The request's or work's that recorded it (migration 0030); null before. */
  correlation_id: string | null;
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

export interface ReceivedTables {
  received_documents: ReceivedDocumentsTable;
  received_artefacts: ReceivedArtefactsTable;
  received_document_events: ReceivedDocumentEventsTable;
  received_commercial_responses: ReceivedCommercialResponsesTable;
  received_response_deliveries: ReceivedResponseDeliveriesTable;
}
