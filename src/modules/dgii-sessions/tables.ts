// The tables module dgii-sessions owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.

export interface DgiiSessionsTable {
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  token_encrypted: string;
  expires_at: Date;
  created_at: Date;
}

export interface DgiiSessionsTables {
  dgii_sessions: DgiiSessionsTable;
}
