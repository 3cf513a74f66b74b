import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The RFCE a type 32 under DOP 250,000 is summarised as is archived with its document, signed once: a resend after
  // an uncertain answer sends the same bytes.
  await sql`alter table document_artefacts drop constraint if exists document_artefacts_kind_check`.execute(db);
  await sql`alter table document_artefacts add constraint document_artefacts_kind_check check (kind in ('source-json', 'source-xml', 'signed-xml', 'rfce-xml'))`.execute(
    db,
  );
}
