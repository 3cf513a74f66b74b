import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The ANECF was the one archived artefact without its SHA-256 and size on record; rows written before this keep
  // nulls, and the verifier checks their signature and existence only.
  await sql`alter table annulments add column sha256 text, add column size integer`.execute(db);

  // The verifier walks the records in the byte order of their keys, beside the object store listing them the same
  // way (S3 lists in UTF-8 byte order): "C" collation, so the database sorts as the store does, whatever the
  // database's own collation. Artefacts written since the last look are found by their creation.
  await sql`create index document_artefacts_blob_key on document_artefacts (blob_key collate "C")`.execute(db);
  await sql`create index received_artefacts_blob_key on received_artefacts (blob_key collate "C")`.execute(db);
  await sql`create index annulments_blob_key on annulments (blob_key collate "C")`.execute(db);
  await sql`create index certification_cases_signed_blob_key on certification_cases (signed_blob_key collate "C")
    where signed_blob_key is not null`.execute(db);
  await sql`create index document_artefacts_created on document_artefacts (created_at)`.execute(db);
  await sql`create index received_artefacts_created on received_artefacts (created_at)`.execute(db);
  await sql`create index annulments_created on annulments (created_at)`.execute(db);

  // One row per defect seen; resolved (never deleted) when a later check passes. At most one open finding of a
  // kind per key, so a check repeated by two verifiers updates the same row.
  await sql`
    create table archive_findings (
      id text primary key,
      kind text not null,
      severity text not null,
      company_id text,
      environment text,
      blob_key text not null,
      owner text,
      owner_id text,
      artefact_kind text,
      detail text not null,
      first_seen_at timestamptz not null,
      last_seen_at timestamptz not null,
      resolved_at timestamptz
    )`.execute(db);
  await sql`create unique index archive_findings_open on archive_findings (blob_key, kind) where resolved_at is null`.execute(
    db,
  );
  await sql`create index archive_findings_listing on archive_findings (first_seen_at desc, id desc)`.execute(db);

  // Passes over the archive: the rolling one the worker keeps going, and those `ecf archive verify` runs. `position`
  // is the last key verified, so a pass that stopped continues after it.
  await sql`
    create table archive_passes (
      id text primary key,
      origin text not null,
      scope jsonb not null,
      started_at timestamptz not null,
      completed_at timestamptz,
      position text,
      artefacts integer not null default 0,
      bytes bigint not null default 0,
      stored_objects integer not null default 0,
      findings integer not null default 0,
      recorded_artefacts integer
    )`.execute(db);
  await sql`create index archive_passes_latest on archive_passes (origin, started_at desc)`.execute(db);

  // The verifier's lease (one worker at a time across processes) and how far the check of new artefacts has come.
  await sql`
    create table archive_verifier (
      id smallint primary key check (id = 1),
      holder text,
      lease_until timestamptz,
      recent_after timestamptz not null,
      recent_key text not null default ''
    )`.execute(db);
  await sql`insert into archive_verifier (id, recent_after) values (1, now())`.execute(db);
}
