// The tables module webhooks owns (docs/architecture.md): only its own code names them; other modules read or change
// them through its index.ts. Migrations in /migrations are the source of truth; this mirrors them.
import type { Generated } from 'kysely';

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

export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
