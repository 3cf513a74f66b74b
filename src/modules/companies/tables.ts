// The tables module companies owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.
import type { ColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from '../../platform/db/schema.js';

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

export interface CompaniesTables {
  companies: CompaniesTable;
  company_certificates: CompanyCertificatesTable;
}
