import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The service segment of the company's receiver URLs (`/{env}/{segment}/fe/...`), lower-case; absent: its RNC.
  await sql`alter table companies add column receiver_segment text`.execute(db);
  await sql`alter table companies add constraint companies_receiver_segment_format check (receiver_segment ~ '^[a-z0-9][a-z0-9._-]{0,62}$' and receiver_segment <> 'emisorreceptor')`.execute(
    db,
  );
  await sql`create unique index companies_receiver_segment on companies (receiver_segment) where receiver_segment is not null`.execute(
    db,
  );

  // Every e-CF sent to a company's receiver that could be read as one, received (Estado 0) or not (Estado 1 with
  // the reason), with the ARECF answered. Only one Estado 0 per issuer and e-NCF: the index decides between
  // concurrent copies, and a later valid resend of one not received is not blocked.
  await sql`
    create table received_documents (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null,
      issuer_rnc text not null,
      encf text not null,
      ecf_type text,
      status text not null check (status in ('received', 'not_received')),
      reason_code text check (reason_code in ('1', '2', '3', '4')),
      commercial_status text check (commercial_status in ('approved', 'rejected')),
      issuer_name text,
      rnc_comprador text,
      fecha_emision text,
      monto_total text,
      total_itbis text,
      received_at timestamptz not null,
      updated_at timestamptz not null,
      check ((status = 'received') = (reason_code is null))
    )`.execute(db);
  await sql`create unique index received_documents_once on received_documents (company_id, environment, issuer_rnc, encf) where status = 'received'`.execute(
    db,
  );
  await sql`create index received_documents_listing on received_documents (company_id, environment, received_at desc, id desc)`.execute(
    db,
  );

  await sql`
    create table received_artefacts (
      received_document_id text not null references received_documents (id),
      kind text not null check (kind in ('received-xml', 'arecf-xml', 'acecf-xml')),
      version integer not null,
      blob_key text not null,
      sha256 text not null,
      size integer not null,
      content_type text not null,
      created_at timestamptz not null,
      primary key (received_document_id, kind, version)
    )`.execute(db);

  await sql`
    create table received_document_events (
      id bigserial primary key,
      received_document_id text not null references received_documents (id),
      at timestamptz not null,
      type text not null,
      status text,
      cause text not null
    )`.execute(db);
  await sql`create index received_document_events_timeline on received_document_events (received_document_id, id)`.execute(
    db,
  );
}
