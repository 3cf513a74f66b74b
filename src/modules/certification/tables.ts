// The tables module certification owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.
import type { ColumnType } from 'kysely';
import type { DgiiMessageRow } from '../../platform/db/schema.js';

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

export interface CertificationTables {
  certification_processes: CertificationProcessesTable;
  certification_steps: CertificationStepsTable;
  certification_confirmations: CertificationConfirmationsTable;
  certification_cases: CertificationCasesTable;
  certification_events: CertificationEventsTable;
}
