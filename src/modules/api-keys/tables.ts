// The tables module api-keys owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.
import type { CreatedAt } from '../../platform/db/schema.js';

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

export interface ApiKeysTables {
  api_keys: ApiKeysTable;
}
