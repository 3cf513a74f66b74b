// The tables module archive owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.
import type { ColumnType, Generated } from 'kysely';

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

export interface ArchiveTables {
  archive_findings: ArchiveFindingsTable;
  archive_passes: ArchivePassesTable;
  archive_verifier: ArchiveVerifierTable;
}
