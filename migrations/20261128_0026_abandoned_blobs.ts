import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Blobs written for work that failed before its record was stored (issue 43): a creation cut by a database outage
  // or by a store that filled up half-way. Written once the database answers again; the archive verifier passes
  // over the objects named here instead of reporting them as orphans. Under S3 Object Lock they cannot be deleted,
  // and they are no one's: this row is what says so. After a restore of the database to an earlier point, these rows
  // are gone with the records, so the objects written since are orphans again, as they should be.
  await sql`
    create table abandoned_blobs (
      key text collate "C" primary key,
      cause text not null,
      abandoned_at timestamptz not null
    )`.execute(db);
}
