// The tables module control-plane owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.
import type { CreatedAt } from '../../platform/db/schema.js';

export interface CloudMessagesTable {
  id: string;
  label: string;
  company_id: string | null;
  received_at: CreatedAt;
}

export interface ControlPlaneTables {
  cloud_messages: CloudMessagesTable;
}
