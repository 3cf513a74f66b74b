// Kysely's view of the platform's own tables: infrastructure any layer above may use (the outbound work engine,
// the domain event outbox, settings, abandoned blobs, the schedules' due times). Every business table is declared by the module that owns it
// (src/modules/<m>/tables.ts) and the whole database composed in src/database.ts. Migrations in /migrations are
// the source of truth; these mirror them.
import type { ColumnType, Generated } from 'kysely';

export type CreatedAt = ColumnType<Date, Date | undefined, never>;
export type Timestamp = ColumnType<Date, Date, Date>;

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: Timestamp;
}

export interface DomainEventsTable {
  id: string;
  company_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  type: string;
  payload: ColumnType<unknown, string, string>;
  dedupe_key: string | null;
  occurred_at: Date;
  /** When webhooks fanned it out into deliveries (migration 0010); null until then. */
  dispatched_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The request's or work's that recorded it (migration 0030; observability/correlation.ts); null before. */
  correlation_id: string | null;
}

export interface DgiiMessageRow {
  codigo: string | null;
  valor: string;
}

/** Blobs written for work that failed before recording them (migration 0026; platform/storage/abandoned-writes.ts). */
export interface AbandonedBlobsTable {
  key: string;
  cause: string;
  abandoned_at: Date;
}

/** Work waiting to go out, one row per item until it settles (migration 0015; platform/work). */
export interface OutboundWorkTable {
  target: string;
  item_id: string;
  environment: 'TEST' | 'CERT' | 'PRODUCTION';
  due_at: Date;
  lease_id: string | null;
  attempts: Generated<number>;
  /** The request's (or job's) that queued it, its every attempt's (migration 0030; observability/correlation.ts). */
  correlation_id: Generated<string>;
}

/** Each recurring job's last due time started (migration 0031; platform/queue/schedule-keeper.ts). */
export interface ScheduleRunsTable {
  job: string;
  due_at: Date;
  /** When a scheduler started it for due_at; null: only noted, when the job was first scheduled. */
  fired_at: Date | null;
}

export interface PlatformTables {
  outbound_work: OutboundWorkTable;
  schedule_runs: ScheduleRunsTable;
  domain_events: DomainEventsTable;
  settings: SettingsTable;
  abandoned_blobs: AbandonedBlobsTable;
}
