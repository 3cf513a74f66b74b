import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Authorised e-NCF ranges. `next_number` is the next number never handed out: numbers are taken in order under a
  // row lock, so a range is a counter, not a list of numbers.
  await sql`
    create table sequence_ranges (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null,
      ecf_type text not null,
      first_number bigint not null,
      last_number bigint not null,
      next_number bigint not null,
      expires_on date,
      created_at timestamptz not null default now(),
      check (first_number >= 1 and last_number >= first_number and last_number <= 9999999999),
      check (next_number >= first_number and next_number <= last_number + 1)
    )`.execute(db);
  await sql`create index sequence_ranges_by_type on sequence_ranges (company_id, environment, ecf_type, first_number)`.execute(
    db,
  );

  // Numbers consumed without a document DGII will see (a failure after allocation, an abandoned offline block):
  // they await annulment (ANECF).
  await sql`
    create table sequence_burned (
      company_id text not null references companies (id),
      environment text not null,
      encf text not null,
      range_id text not null references sequence_ranges (id),
      cause text not null,
      burned_at timestamptz not null,
      annulment_id text,
      primary key (company_id, environment, encf)
    )`.execute(db);

  // Domain events for webhooks to deliver (the outbox). A dedupe key makes "once per range" events idempotent.
  await sql`
    create table domain_events (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null,
      type text not null,
      payload jsonb not null,
      dedupe_key text unique,
      occurred_at timestamptz not null
    )`.execute(db);
  await sql`create index domain_events_by_company on domain_events (company_id, occurred_at)`.execute(db);
}
