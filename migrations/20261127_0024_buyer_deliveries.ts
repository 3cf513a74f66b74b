import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Each e-CF DGII accepted goes on to its buyer (Informe Técnico §8 steps 3-4; DESIGN §5.3): one delivery per
  // document, to the buyer's electronic receiver, by e-mail, or to no one (`none`, with why). Its attempts are
  // outbound work (target `buyer.delivery`); this row is where it stands. The receiver's ARECF is archived as the
  // document's `arecf-xml` artefact; its fields are kept here for the view and the filter.
  await sql`
    create table document_deliveries (
      document_id text primary key references documents (id),
      company_id text not null references companies (id),
      environment text not null,
      channel text check (channel in ('receiver', 'email', 'none')),
      status text not null check (status in ('pending', 'delivered', 'not_received', 'failed', 'skipped')),
      attempts integer not null default 0,
      last_error text,
      reason text,
      requested_at timestamptz,
      requested_address text,
      target text,
      arecf_estado text,
      arecf_motivo text,
      arecf_fecha_hora text,
      arecf_version integer,
      message_id text,
      next_attempt_at timestamptz,
      delivered_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create index document_deliveries_company_status on document_deliveries (company_id, environment, status, document_id desc)`.execute(
    db,
  );
  // The receiver's ARECF is an artefact of the document, one version per delivery that got one.
  await sql`alter table document_artefacts drop constraint document_artefacts_kind_check`.execute(db);
  await sql`alter table document_artefacts add constraint document_artefacts_kind_check check (kind in ('source-json', 'source-xml', 'signed-xml', 'rfce-xml', 'acecf-xml', 'arecf-xml'))`.execute(
    db,
  );
  // Per company: whether accepted documents go out by themselves, and how the e-mails are signed.
  await sql`
    alter table companies
      add column delivery_automatic boolean not null default true,
      add column delivery_sender_name text,
      add column delivery_reply_to text`.execute(db);
}
