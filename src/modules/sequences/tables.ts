// The tables module sequences owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, DgiiMessageRow } from '../../platform/db/schema.js';

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

export interface SequencesTables {
  sequence_ranges: SequenceRangesTable;
  sequence_burned: SequenceBurnedTable;
  sequence_allocations: SequenceAllocationsTable;
  sequence_allocation_uses: SequenceAllocationUsesTable;
  annulments: AnnulmentsTable;
  annulment_spans: AnnulmentSpansTable;
}
