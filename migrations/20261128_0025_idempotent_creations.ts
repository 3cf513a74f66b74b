import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The document an Idempotency-Key created, written in the statement that stores the document (issue 43): a
  // creation whose commit went through but whose answer was lost (the database went away right after) is found
  // again by its key, and two creations under one key can never both commit, whatever became of the claim.
  await sql`
    create table idempotent_creations (
      company_id text not null references companies (id),
      environment text not null,
      key text not null,
      document_id text not null references documents (id),
      created_at timestamptz not null,
      primary key (company_id, environment, key)
    )`.execute(db);
  // Who holds an in-flight claim, and since when: a claim whose holder died (or could not release it because the
  // database was away) is taken over by the next request with the key instead of blocking it for 48 hours.
  await sql`alter table idempotency_keys add column claimed_by text`.execute(db);
  await sql`alter table idempotency_keys add column claimed_at timestamptz`.execute(db);
}
