import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table documents (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null,
      ecf_type text not null,
      encf text not null,
      status text not null,
      origin text not null check (origin in ('json', 'signed_xml')),
      fecha_emision text not null,
      rnc_comprador text,
      monto_total text not null,
      total_itbis text,
      security_code text not null,
      fecha_hora_firma text not null,
      timbre_url text not null,
      range_id text references sequence_ranges (id),
      warnings jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (company_id, environment, encf)
    )`.execute(db);
  await sql`create index documents_listing on documents (company_id, environment, created_at desc, id desc)`.execute(
    db,
  );

  // Every artefact of a document, versioned; the bytes live in the blob store, write-once.
  await sql`
    create table document_artefacts (
      document_id text not null references documents (id),
      kind text not null check (kind in ('source-json', 'source-xml', 'signed-xml')),
      version integer not null,
      blob_key text not null,
      sha256 text not null,
      size integer not null,
      content_type text not null,
      created_at timestamptz not null,
      primary key (document_id, kind, version)
    )`.execute(db);

  // The timeline: every change of state and every event of a document, with its cause.
  await sql`
    create table document_events (
      id bigserial primary key,
      document_id text not null references documents (id),
      at timestamptz not null,
      type text not null,
      status text,
      cause text not null
    )`.execute(db);
  await sql`create index document_events_timeline on document_events (document_id, id)`.execute(db);
}
