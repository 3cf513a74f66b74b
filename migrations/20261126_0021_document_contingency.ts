import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Set once, when a send attempt found DGII out of reach before DGII took the e-CF, and never cleared: the printed
  // representation carries the contingency legend (Modelos ilustrativos 4.1) from recorded facts, so its bytes do
  // not change with the document's later status.
  await sql`alter table documents add column issued_in_contingency boolean not null default false`.execute(db);
}
