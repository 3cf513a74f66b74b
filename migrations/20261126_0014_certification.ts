import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // DGII's issuer certification, run in CERT (SPEC §3 rules 1-8, §4.8; research/certification.md §6.1). One active
  // process per company: the partial unique index decides between concurrent starts.
  await sql`
    create table certification_processes (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null,
      label text not null,
      status text not null check (status in ('active', 'failed', 'cancelled', 'completed')),
      failure jsonb,
      cancel_reason text,
      previous_process_id text references certification_processes (id),
      set_sha256 text not null,
      created_by_key text,
      -- One worker at a time works a process's lane: it holds it until then (a dead worker's lease runs out).
      lane_lease_until timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      ended_at timestamptz
    )`.execute(db);
  await sql`create unique index certification_processes_one_active on certification_processes (company_id, environment) where status = 'active'`.execute(
    db,
  );
  await sql`create index certification_processes_by_company on certification_processes (company_id, environment, created_at desc)`.execute(
    db,
  );

  // The portal's 14 steps of each process; `key` names the manual ones (SPEC §4.8).
  await sql`
    create table certification_steps (
      process_id text not null references certification_processes (id),
      number integer not null check (number between 1 and 14),
      key text,
      mode text not null check (mode in ('manual', 'automatic')),
      status text not null check (status in ('locked', 'open', 'done', 'failed')),
      evidence jsonb not null default '{}',
      opened_at timestamptz,
      done_at timestamptz,
      primary key (process_id, number)
    )`.execute(db);

  // Manual confirmations: append-only, auditable (SPEC §3 rule 8). Carried ones name the process they came from.
  await sql`
    create table certification_confirmations (
      id text primary key,
      process_id text not null references certification_processes (id),
      step integer not null,
      key text not null,
      note text,
      api_key_id text,
      correlation_id text,
      carried_from text references certification_processes (id),
      confirmed_at timestamptz not null
    )`.execute(db);
  await sql`create index certification_confirmations_by_process on certification_confirmations (process_id, confirmed_at)`.execute(
    db,
  );

  // The cases of the set, each with its immutable payload and what DGII said of it.
  await sql`
    create table certification_cases (
      process_id text not null references certification_processes (id),
      kind text not null check (kind in ('ECF', 'RFCE', 'ACECF')),
      case_key text not null,
      ecf_type text,
      step integer not null check (step in (2, 3, 4)),
      position integer not null,
      origin text not null check (origin in ('set', 'derived', 'simulation')),
      payload jsonb not null,
      payload_sha256 text not null,
      depends_on text,
      route text not null check (route in ('reception', 'rfce', 'approval')),
      status text not null check (status in ('pending', 'sent', 'accepted', 'rejected', 'error')),
      waiting_for text,
      estado text,
      codigo text,
      mensajes jsonb not null default '[]',
      document_id text references documents (id),
      -- The signed ACECF of a step-3 case (the e-CF's bytes live with their document), archived before it is sent.
      signed_blob_key text,
      signed_sha256 text,
      -- Handed to the process's serial lane by ejecutar; the lane sends the queued cases one at a time.
      queued_at timestamptz,
      carried_from_process_id text references certification_processes (id),
      sent_at timestamptz,
      verdict_at timestamptz,
      updated_at timestamptz not null,
      primary key (process_id, kind, case_key)
    )`.execute(db);

  await sql`create index certification_cases_in_lane on certification_cases (process_id) where queued_at is not null and status in ('pending', 'sent')`.execute(
    db,
  );

  // A set's documents are the company's documents, numbered by DGII's set rather than the company's ranges.
  await sql`alter table documents drop constraint documents_origin_check`.execute(db);
  await sql`alter table documents add constraint documents_origin_check check (origin in ('json', 'signed_xml', 'certification'))`.execute(
    db,
  );

  // Every change of a process, step or case, with its cause.
  await sql`
    create table certification_events (
      id text primary key,
      process_id text not null references certification_processes (id),
      at timestamptz not null,
      subject text not null,
      status text not null,
      cause text not null
    )`.execute(db);
  await sql`create index certification_events_by_process on certification_events (process_id, at)`.execute(db);
}
