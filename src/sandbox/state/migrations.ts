// The sandbox's tables, migrated apart from the service's (own migration table), so the emulator can live in the
// service's database (embedded) or in its own (standalone) and never mixes its history with the service's.
import { Migrator, sql, type Kysely, type Migration } from 'kysely';

const initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create table sandbox_taxpayers (
        rnc text primary key,
        name text not null,
        electronic boolean not null,
        active boolean not null,
        accept_any_certificate boolean not null default false,
        reception_url text,
        approval_url text,
        authentication_url text,
        created_at timestamptz not null default now()
      )`.execute(db);
    await sql`
      create table sandbox_delegations (
        rnc text not null references sandbox_taxpayers (rnc) on delete cascade,
        certificate_sha256 text not null,
        primary key (rnc, certificate_sha256)
      )`.execute(db);
    await sql`
      create table sandbox_ranges (
        id serial primary key,
        environment text not null,
        rnc text not null references sandbox_taxpayers (rnc) on delete cascade,
        type text not null,
        first_sequence bigint not null,
        last_sequence bigint not null,
        expires_on date,
        created_at timestamptz not null default now(),
        check (first_sequence >= 1 and last_sequence >= first_sequence)
      )`.execute(db);
    await sql`create index sandbox_ranges_lookup on sandbox_ranges (environment, rnc, type)`.execute(db);
    await sql`
      create table sandbox_seeds (
        value text primary key,
        environment text not null,
        issued_at timestamptz not null,
        expires_at timestamptz not null,
        used_at timestamptz
      )`.execute(db);
    await sql`
      create table sandbox_tokens (
        token_sha256 text primary key,
        environment text not null,
        certificate_sha256 text not null,
        holder text not null,
        issued_at timestamptz not null,
        expires_at timestamptz not null
      )`.execute(db);
    await sql`
      create table sandbox_documents (
        track_id text primary key,
        environment text not null,
        channel text not null check (channel in ('ecf', 'rfce')),
        rnc_emisor text not null,
        encf text not null,
        type text not null,
        received_at timestamptz not null,
        ready_at timestamptz not null,
        outcome integer not null check (outcome in (1, 2, 4)),
        secuencia_utilizada boolean not null,
        messages jsonb not null,
        monto_total text,
        total_itbis text,
        fecha_emision text,
        fecha_firma text,
        rnc_comprador text,
        id_extranjero text,
        security_code text,
        xml text not null
      )`.execute(db);
    await sql`create index sandbox_documents_by_encf on sandbox_documents (environment, rnc_emisor, encf, received_at)`.execute(
      db,
    );
    await sql`
      create table sandbox_sequence_uses (
        environment text not null,
        rnc text not null,
        encf text not null,
        used_by text not null check (used_by in ('ecf', 'rfce', 'annulment')),
        track_id text,
        used_at timestamptz not null,
        primary key (environment, rnc, encf)
      )`.execute(db);
    await sql`
      create table sandbox_approvals (
        id serial primary key,
        environment text not null,
        rnc_emisor text not null,
        encf text not null,
        rnc_comprador text not null,
        estado text not null,
        received_at timestamptz not null,
        accepted boolean not null,
        xml text not null
      )`.execute(db);
    await sql`
      create table sandbox_arrivals (
        id serial primary key,
        service text not null,
        environment text not null,
        rnc text,
        encf text,
        track_id text,
        outcome text not null,
        arrived_at timestamptz not null
      )`.execute(db);
    await sql`
      create table sandbox_faults (
        id serial primary key,
        service text not null,
        mode text not null,
        probability double precision not null default 1,
        remaining integer,
        delay_ms integer not null default 0,
        created_at timestamptz not null default now()
      )`.execute(db);
    await sql`create table sandbox_settings (key text primary key, value jsonb not null)`.execute(db);
    await sql`
      create table sandbox_exchanges (
        id serial primary key,
        environment text not null,
        kind text not null check (kind in ('ecf', 'acecf')),
        rnc text not null,
        encf text not null,
        target_url text not null,
        sent_at timestamptz not null,
        http_status integer,
        response_xml text,
        state text not null,
        messages jsonb not null
      )`.execute(db);
  },
};

// DGII's certification portal (research/certification.md §1, §6.12): a postulación per RNC, its sets, what each
// step counted, the inbox, and the directory entries a postulación writes for production.
const certification: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create table sandbox_cert_sets (
        id serial primary key,
        rnc text not null,
        name text not null,
        cases jsonb not null,
        created_at timestamptz not null
      )`.execute(db);
    await sql`create index sandbox_cert_sets_by_rnc on sandbox_cert_sets (rnc)`.execute(db);
    await sql`
      create table sandbox_cert_postulaciones (
        id serial primary key,
        rnc text not null references sandbox_taxpayers (rnc) on delete cascade,
        step integer not null check (step between 1 and 15),
        round integer not null default 0,
        cancelled boolean not null default false,
        cancel_reason text,
        set_id integer references sandbox_cert_sets (id),
        test_urls jsonb not null,
        production_urls jsonb,
        printed_representations jsonb,
        declaration_code text,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`.execute(db);
    // One postulación at a time per RNC; a cancelled one makes room for a new one (PCERT §2.1).
    await sql`create unique index sandbox_cert_postulaciones_active on sandbox_cert_postulaciones (rnc) where not cancelled`.execute(
      db,
    );
    await sql`
      create table sandbox_cert_records (
        id serial primary key,
        postulacion_id integer not null references sandbox_cert_postulaciones (id) on delete cascade,
        step integer not null,
        round integer not null,
        kind text not null check (kind in ('ecf', 'rfce', 'fc_upload', 'acecf')),
        encf text not null,
        type text not null,
        security_code text,
        recorded_at timestamptz not null
      )`.execute(db);
    await sql`create index sandbox_cert_records_by_postulacion on sandbox_cert_records (postulacion_id, step, round)`.execute(
      db,
    );
    await sql`
      create table sandbox_cert_inbox (
        id serial primary key,
        postulacion_id integer not null references sandbox_cert_postulaciones (id) on delete cascade,
        sent_at timestamptz not null,
        text text not null
      )`.execute(db);
    await sql`
      create table sandbox_directory_entries (
        environment text not null,
        rnc text not null references sandbox_taxpayers (rnc) on delete cascade,
        reception_url text not null,
        approval_url text not null,
        authentication_url text not null,
        primary key (environment, rnc)
      )`.execute(db);
  },
};

// The mail catcher (mail/mail-catcher.ts): every message the service e-mailed, kept whole.
const mail: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create table sandbox_mail (
        id serial primary key,
        received_at timestamptz not null,
        envelope_from text not null,
        recipients jsonb not null,
        subject text,
        message_id text,
        size integer not null,
        raw text not null
      )`.execute(db);
  },
};

// The counterpart receiver asks the arrivals log, for every e-CF posted to it, whether it had that e-CF before
// (counterpart-receiver.ts): without an index each question read every arrival of every service, DGII's receptions
// included, so the counterpart slowed with every document the sandbox ever took.
const arrivalsLookup: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create index sandbox_arrivals_by_document on sandbox_arrivals (rnc, encf)`.execute(db);
  },
};

// Voided numbers as spans (services/annulment-ranges.ts): a row per voided number capped an ANECF at what the sandbox
// could write in one request, where DGII takes any span its format carries (ten digits). Spans of an issuer and type
// never overlap, and never hold a number a document used. The rows kept so far become spans: consecutive numbers
// voided by the same request are one span.
const voidedSpans: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create table sandbox_voided_spans (
        environment text not null,
        rnc text not null,
        type text not null,
        first_sequence bigint not null,
        last_sequence bigint not null,
        voided_at timestamptz not null,
        check (first_sequence >= 1 and last_sequence >= first_sequence),
        primary key (environment, rnc, type, first_sequence)
      )`.execute(db);
    await sql`
      insert into sandbox_voided_spans (environment, rnc, type, first_sequence, last_sequence, voided_at)
      select environment, rnc, type, min(sequence), max(sequence), min(used_at)
      from (
        select environment, rnc, type, sequence, track_id, used_at,
          sequence - row_number() over (partition by environment, rnc, type, track_id order by sequence) as island
        from (
          select environment, rnc, substr(encf, 2, 2) as type, substr(encf, 4)::bigint as sequence, track_id, used_at
          from sandbox_sequence_uses
          where used_by = 'annulment'
        ) voided
      ) numbered
      group by environment, rnc, type, track_id, island`.execute(db);
    await sql`delete from sandbox_sequence_uses where used_by = 'annulment'`.execute(db);
    await sql`
      alter table sandbox_sequence_uses
        drop constraint sandbox_sequence_uses_used_by_check,
        add constraint sandbox_sequence_uses_used_by_check check (used_by in ('ecf', 'rfce'))`.execute(db);
  },
};

const migrations: Record<string, Migration> = {
  '20261121_0001_sandbox': initial,
  '20261201_0002_sandbox_certification': certification,
  '20261201_0003_sandbox_mail': mail,
  '20261202_0004_sandbox_arrivals_lookup': arrivalsLookup,
  '20261203_0005_sandbox_voided_spans': voidedSpans,
};

/** The sandbox's migrator, on its own migration tables (the tests that upgrade a sandbox step with it too). */
export function sandboxMigrator(db: Kysely<unknown>): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    migrationTableName: 'sandbox_migration',
    migrationLockTableName: 'sandbox_migration_lock',
  });
}

/** Applies the sandbox's pending migrations; returns their names. */
export async function migrateSandbox(db: Kysely<unknown>): Promise<string[]> {
  const { error, results } = await sandboxMigrator(db).migrateToLatest();
  if (error !== undefined)
    throw new Error(`Sandbox migration failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`, {
      cause: error,
    });
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
