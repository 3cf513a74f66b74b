import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The outbox's dispatch mark: an event is fanned out into deliveries once, by whichever worker locks it first.
  await sql`alter table domain_events add column dispatched_at timestamptz`.execute(db);
  await sql`create index domain_events_undispatched on domain_events (occurred_at, id) where dispatched_at is null`.execute(
    db,
  );

  // A company's webhook endpoint. `event_types` null: every event type. The signing secret is sealed with the master
  // key; after a rotation the previous one keeps signing (beside the new one) until `previous_secret_until`.
  // `failing_since`: the first failed attempt of an unbroken run of failures (cleared by a success).
  await sql`
    create table webhook_endpoints (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null,
      url text not null,
      description text,
      event_types text[],
      status text not null check (status in ('enabled', 'disabled')),
      disabled_reason text,
      secret_sealed text not null,
      previous_secret_sealed text,
      previous_secret_until timestamptz,
      failing_since timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create index webhook_endpoints_listing on webhook_endpoints (company_id, environment, created_at desc, id desc)`.execute(
    db,
  );

  // One event for one endpoint. The body is fixed when the delivery is made; each attempt signs it afresh.
  // `next_attempt_at`: when a failed delivery is due again (null while a job holds or is about to take it);
  // `lease_until`: the claim of the worker attempting it now (a crashed worker's claim runs out).
  await sql`
    create table webhook_deliveries (
      id text primary key,
      endpoint_id text not null references webhook_endpoints (id),
      company_id text not null references companies (id),
      environment text not null,
      event_id text not null,
      event_type text not null,
      body text not null,
      status text not null check (status in ('pending', 'succeeded', 'failed', 'exhausted')),
      attempts integer not null default 0,
      next_attempt_at timestamptz,
      lease_until timestamptz,
      last_error text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (event_id, endpoint_id)
    )`.execute(db);
  await sql`create index webhook_deliveries_listing on webhook_deliveries (company_id, environment, created_at desc, id desc)`.execute(
    db,
  );
  // What the delivery loop claims: waiting deliveries only, in the order it takes them, however long the history.
  await sql`create index webhook_deliveries_waiting on webhook_deliveries (created_at, id) where status in ('pending', 'failed')`.execute(
    db,
  );

  await sql`
    create table webhook_attempts (
      id bigserial primary key,
      delivery_id text not null references webhook_deliveries (id),
      attempted_at timestamptz not null,
      status_code integer,
      duration_ms integer not null,
      error text,
      response_excerpt text
    )`.execute(db);
  await sql`create index webhook_attempts_of on webhook_attempts (delivery_id, id)`.execute(db);
}
