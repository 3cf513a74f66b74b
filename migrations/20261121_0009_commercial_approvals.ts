import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The ACECF a buyer sent about one of our e-CF is archived with the document, byte for byte.
  await sql`alter table document_artefacts drop constraint if exists document_artefacts_kind_check`.execute(db);
  await sql`alter table document_artefacts add constraint document_artefacts_kind_check check (kind in ('source-json', 'source-xml', 'signed-xml', 'rfce-xml', 'acecf-xml'))`.execute(
    db,
  );

  // The buyer's commercial answer (ACECF): one per document, the first that verifies and matches; its bytes are the
  // document's acecf-xml artefact (acecf_sha256 repeats that artefact's hash so a resend can be recognised).
  await sql`
    create table document_commercial_responses (
      document_id text primary key references documents (id),
      decision text not null check (decision in ('approved', 'rejected')),
      reason text,
      rnc_comprador text not null,
      fecha_hora_aprobacion text,
      acecf_sha256 text not null,
      received_at timestamptz not null
    )`.execute(db);
}
