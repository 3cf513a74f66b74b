import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The QR URL writes FechaFirma's colons literally, as DGII's examples do (src/fiscal/timbre-url.ts), so the
  // document view and the printed representation (which reads it from the signed XML) give one URL. Only FechaFirma
  // can hold a colon: the other parameters are digits, dates with dashes, amounts and a base64 security code.
  await sql`update documents set timbre_url = replace(timbre_url, '%3A', ':') where timbre_url like '%\\%3A%'`.execute(
    db,
  );
}
