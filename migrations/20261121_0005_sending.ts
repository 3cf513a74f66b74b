import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // What DGII said about a document, and where its sending stands. `send_lease_id` and `send_lease_until` are the
  // claim of the one worker that may talk to DGII about the document now; a crashed worker's claim runs out and
  // another takes over.
  await sql`
    alter table documents
      add column send_route text check (send_route in ('reception', 'rfce')),
      add column send_attempts integer not null default 0,
      add column send_lease_id text,
      add column send_lease_until timestamptz,
      add column track_id text,
      add column dgii_estado text,
      add column dgii_codigo text,
      add column dgii_messages jsonb not null default '[]',
      add column secuencia_utilizada boolean,
      add column poll_count integer not null default 0,
      add column next_poll_at timestamptz,
      add column sent_at timestamptz,
      add column final_at timestamptz`.execute(db);
  // The poller's question, every second: which documents waiting for DGII's verdict are due to be asked again.
  await sql`create index documents_due_polls on documents (next_poll_at) where status = 'in_process'`.execute(db);
  await sql`create index documents_pending on documents (environment, status) where status in ('queued', 'sending', 'in_process')`.execute(
    db,
  );

  // A fiscal job that ran out of attempts: open until its document reaches a final state.
  await sql`
    create table failed_jobs (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null,
      kind text not null,
      document_id text references documents (id),
      reason text not null,
      attempts integer not null,
      opened_at timestamptz not null,
      closed_at timestamptz,
      closed_because text
    )`.execute(db);
  await sql`create index failed_jobs_listing on failed_jobs (company_id, environment, opened_at desc, id desc)`.execute(
    db,
  );
  await sql`create unique index failed_jobs_one_open on failed_jobs (document_id, kind) where closed_at is null`.execute(
    db,
  );

  // A DGII session the company obtained by signing a seed outside the service (SPEC §4.3): the token, encrypted.
  await sql`
    create table dgii_sessions (
      company_id text not null references companies (id),
      environment text not null,
      token_encrypted text not null,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      primary key (company_id, environment)
    )`.execute(db);

  // Annulments (ANECF) of unused e-NCF: burned numbers, and the unissued tail of a range (withdrawn from handing
  // out while the request stands by moving the range's next number past it; given back if DGII rejects it).
  await sql`
    create table annulments (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null,
      status text not null check (status in ('pending', 'sending', 'accepted', 'rejected', 'failed')),
      total bigint not null,
      blob_key text not null,
      attempts integer not null default 0,
      dgii_estado text,
      dgii_codigo text,
      dgii_messages jsonb not null default '[]',
      created_at timestamptz not null,
      updated_at timestamptz not null,
      final_at timestamptz
    )`.execute(db);
  await sql`create index annulments_listing on annulments (company_id, environment, created_at desc, id desc)`.execute(
    db,
  );
  await sql`
    create table annulment_spans (
      annulment_id text not null references annulments (id),
      range_id text not null references sequence_ranges (id),
      ecf_type text not null,
      first_number bigint not null,
      last_number bigint not null,
      kind text not null check (kind in ('burned', 'unissued')),
      primary key (annulment_id, range_id, first_number)
    )`.execute(db);
}
