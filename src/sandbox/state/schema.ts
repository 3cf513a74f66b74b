// Kysely's view of the sandbox's own tables (state/migrations.ts creates them). They live beside the service's
// tables in embedded mode and in the sandbox's own database standalone; every name starts with `sandbox_`.
import type { ColumnType, Generated, Kysely } from 'kysely';

/** DGII's environment path segments, lower case: TesteCF, CerteCF, eCF. */
export const sandboxEnvironments = ['testecf', 'certecf', 'ecf'] as const;
export type SandboxEnvironment = (typeof sandboxEnvironments)[number];

type CreatedAt = ColumnType<Date, Date | undefined, never>;
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

/** A registered taxpayer (the same in every environment, as in DGII's registry). */
export interface SandboxTaxpayersTable {
  rnc: string;
  name: string;
  /** Authorised to issue e-CF. */
  electronic: boolean;
  active: boolean;
  /** Demo convenience: any certificate may act for this taxpayer (no delegation needed). */
  accept_any_certificate: boolean;
  /** Directory entry: the taxpayer's receiver bases (DGII calls them urlRecepcion, urlAceptacion, urlOpcional). */
  reception_url: string | null;
  approval_url: string | null;
  authentication_url: string | null;
  created_at: CreatedAt;
}

/** A certificate (SHA-256 of its DER, hex) delegated to act for a taxpayer in DGII's Oficina Virtual. */
export interface SandboxDelegationsTable {
  rnc: string;
  certificate_sha256: string;
}

/** An authorised range of e-NCF sequence numbers for a taxpayer, type and environment. */
export interface SandboxRangesTable {
  id: Generated<number>;
  environment: SandboxEnvironment;
  rnc: string;
  type: string;
  first_sequence: number;
  last_sequence: number;
  /** Last day the numbers may be used (`yyyy-mm-dd`, GMT-4); null: they do not expire (types 32 and 34). */
  expires_on: string | null;
  created_at: CreatedAt;
}

export interface SandboxSeedsTable {
  value: string;
  environment: SandboxEnvironment;
  issued_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface SandboxTokensTable {
  /** SHA-256 of the bearer token: a leaked table does not leak sessions. */
  token_sha256: string;
  environment: SandboxEnvironment;
  certificate_sha256: string;
  /** The certificate holder's identifier (its subject serialNumber, a cédula in DGII's tokens). */
  holder: string;
  issued_at: Date;
  expires_at: Date;
}

/** Outcome codes as DGII's consulta resultado gives them (0 No encontrado is never stored). */
export type SandboxOutcomeCode = 1 | 2 | 3 | 4;

/** An e-CF or RFCE received and judged. The verdict is decided on arrival and shown once `ready_at` has passed
 * (until then: 3 En Proceso), so a restart loses nothing and never re-judges. */
export interface SandboxDocumentsTable {
  track_id: string;
  environment: SandboxEnvironment;
  channel: 'ecf' | 'rfce';
  rnc_emisor: string;
  encf: string;
  type: string;
  received_at: Date;
  ready_at: Date;
  /** 1 Aceptado, 2 Rechazado, 4 Aceptado Condicional. */
  outcome: 1 | 2 | 4;
  secuencia_utilizada: boolean;
  messages: Json<SandboxMessage[]>;
  /** Values shown by consultaestado and the QR pages; null when the document could not be read. */
  monto_total: string | null;
  total_itbis: string | null;
  fecha_emision: string | null;
  fecha_firma: string | null;
  rnc_comprador: string | null;
  id_extranjero: string | null;
  security_code: string | null;
  xml: string;
}

export interface SandboxMessage {
  valor: string;
  codigo: number;
}

/** An e-NCF consumed by an accepted (or burned) document; voided ones are spans (SandboxVoidedSpansTable). */
export interface SandboxSequenceUsesTable {
  environment: SandboxEnvironment;
  rnc: string;
  encf: string;
  used_by: 'ecf' | 'rfce';
  track_id: string | null;
  used_at: Date;
}

/** Numbers an ANECF voided, first to last: an issuer's spans of a type never overlap nor hold a used number. */
export interface SandboxVoidedSpansTable {
  environment: SandboxEnvironment;
  rnc: string;
  type: string;
  first_sequence: number;
  last_sequence: number;
  voided_at: Date;
}

/** Commercial approvals (ACECF) DGII received. */
export interface SandboxApprovalsTable {
  id: Generated<number>;
  environment: SandboxEnvironment;
  rnc_emisor: string;
  encf: string;
  rnc_comprador: string;
  estado: string;
  received_at: Date;
  accepted: boolean;
  xml: string;
}

/** Every request that reached a receiving service, whatever became of it: tests prove "sent once" with these. */
export interface SandboxArrivalsTable {
  id: Generated<number>;
  service: string;
  environment: string;
  rnc: string | null;
  encf: string | null;
  track_id: string | null;
  /** What the sandbox did: accepted for processing, refused (and why), or a fault it injected. */
  outcome: string;
  arrived_at: Date;
}

/** Injected faults, per service. */
export interface SandboxFaultsTable {
  id: Generated<number>;
  service: string;
  mode: SandboxFaultMode;
  /** 0..1: the chance each request is hit; 1 by default. */
  probability: number;
  /** How many more requests to hit; null: until cleared. */
  remaining: number | null;
  /** For `slow` and `timeout`: how long to hold the request. */
  delay_ms: number;
  created_at: CreatedAt;
}

/** Faults of the transport, acted out before the service runs: any route can suffer them. */
export const sandboxTransportFaultModes = ['timeout', 'reset', 'http500', 'http503', 'slow', 'maintenance'] as const;

/** Faults only a receiving service can act out, on the document it was sent (http/fault-targets.ts says which). */
export const sandboxDocumentFaultModes = [
  'accept_then_lose',
  'reject',
  'not_received_1',
  'not_received_2',
  'not_received_3',
  'not_received_4',
  'arecf_unsigned',
  'arecf_foreign',
] as const;
export type SandboxDocumentFaultMode = (typeof sandboxDocumentFaultModes)[number];

export const sandboxFaultModes = [...sandboxTransportFaultModes, ...sandboxDocumentFaultModes] as const;
export type SandboxFaultMode = (typeof sandboxFaultModes)[number];

export interface SandboxSettingsTable {
  key: string;
  value: Json<unknown>;
}

/** What the counterpart taxpayer (DGII's emisorreceptor) sent to a receiver, and the ARECF it got back. */
export interface SandboxExchangesTable {
  id: Generated<number>;
  environment: SandboxEnvironment;
  kind: 'ecf' | 'acecf';
  /** The counterpart's RNC (issuer of the e-CF, or buyer approving one). */
  rnc: string;
  encf: string;
  target_url: string;
  sent_at: Date;
  http_status: number | null;
  /** For an e-CF: the ARECF that came back and what we made of it. */
  response_xml: string | null;
  state: string;
  messages: Json<string[]>;
}

/** Three receiver URLs as a postulación gives them (DGII's form: URL Recepción, URL Aprobación, URL Autenticación). */
export interface ReceiverUrls {
  receptionUrl: string;
  approvalUrl: string;
  authenticationUrl: string;
}

/** A postulación to DGII's certification portal (CerteCF; research/certification.md §1, §6.12). */
export interface SandboxCertPostulacionesTable {
  id: Generated<number>;
  rnc: string;
  /** 1..14 the portal's steps, 15 "Finalizado"; strictly linear. */
  step: number;
  /** Bumped whenever counting starts over (a reset, a new step, a new set): records of older rounds no longer count. */
  round: Generated<number>;
  cancelled: Generated<boolean>;
  cancel_reason: string | null;
  set_id: number | null;
  test_urls: Json<ReceiverUrls>;
  production_urls: NullableJson<ReceiverUrls>;
  /** The slots of the printed representations uploaded in step 5, with their sizes. */
  printed_representations: NullableJson<{ slot: string; bytes: number }[]>;
  /** The code of the sworn declaration issued in step 13, which the signed one must carry. */
  declaration_code: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A certification set DGII issued for a taxpayer: its cases (ECF and RFCE, DGII-shaped JSON) and workbook name. */
export interface SandboxCertSetsTable {
  id: Generated<number>;
  rnc: string;
  name: string;
  cases: Json<unknown>;
  created_at: Date;
}

/** What a step counted: an accepted e-CF or RFCE, a consumer invoice uploaded, an approval received. */
export interface SandboxCertRecordsTable {
  id: Generated<number>;
  postulacion_id: number;
  step: number;
  round: number;
  kind: 'ecf' | 'rfce' | 'fc_upload' | 'acecf';
  encf: string;
  type: string;
  /** RFCE: its CodigoSeguridadeCF, which the uploaded full e-CF's signature must begin with. */
  security_code: string | null;
  recorded_at: Date;
}

/** The portal's inbox: DGII's messages to the taxpayer. */
export interface SandboxCertInboxTable {
  id: Generated<number>;
  postulacion_id: number;
  sent_at: Date;
  text: string;
}

/** A taxpayer's directory entry for one environment, over the one in sandbox_taxpayers (step 12 writes production's). */
export interface SandboxDirectoryEntriesTable {
  environment: SandboxEnvironment;
  rnc: string;
  reception_url: string;
  approval_url: string;
  authentication_url: string;
}

/** A message the mail catcher accepted: its envelope, a few headers to list it by, and the message as sent. */
export interface SandboxMailTable {
  id: Generated<number>;
  received_at: Date;
  /** MAIL FROM (empty for the null sender). */
  envelope_from: string;
  /** RCPT TO, in order. */
  recipients: Json<string[]>;
  subject: string | null;
  message_id: string | null;
  /** Bytes of the message as received. */
  size: number;
  /** The whole message (RFC 5322), as text: the catcher takes only 7-bit or UTF-8 messages. */
  raw: string;
}

export interface SandboxDatabase {
  sandbox_taxpayers: SandboxTaxpayersTable;
  sandbox_delegations: SandboxDelegationsTable;
  sandbox_ranges: SandboxRangesTable;
  sandbox_seeds: SandboxSeedsTable;
  sandbox_tokens: SandboxTokensTable;
  sandbox_documents: SandboxDocumentsTable;
  sandbox_sequence_uses: SandboxSequenceUsesTable;
  sandbox_voided_spans: SandboxVoidedSpansTable;
  sandbox_approvals: SandboxApprovalsTable;
  sandbox_arrivals: SandboxArrivalsTable;
  sandbox_faults: SandboxFaultsTable;
  sandbox_settings: SandboxSettingsTable;
  sandbox_exchanges: SandboxExchangesTable;
  sandbox_cert_postulaciones: SandboxCertPostulacionesTable;
  sandbox_cert_sets: SandboxCertSetsTable;
  sandbox_cert_records: SandboxCertRecordsTable;
  sandbox_cert_inbox: SandboxCertInboxTable;
  sandbox_directory_entries: SandboxDirectoryEntriesTable;
  sandbox_mail: SandboxMailTable;
}

export type SandboxDb = Kysely<SandboxDatabase>;
