import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One correlation id from request to DGII (SPEC §9.5; DESIGN §4): the id of the request (or job) that queued an item
  // of outbound work is stored with it, so the item's every attempt, after a crash too, works and logs under it
  // (platform/work). Every item has one: those waiting at the upgrade, and a lease taken by a holder that names
  // none (lease.repo.ts), get an id of their own.
  await sql`alter table outbound_work add column correlation_id text not null default gen_random_uuid()::text`.execute(
    db,
  );
  // And the traces that work (or a request) leaves: its timeline entries and the events delivered by webhook. Null
  // for those recorded before.
  await sql`alter table domain_events add column correlation_id text`.execute(db);
  await sql`alter table document_events add column correlation_id text`.execute(db);
  await sql`alter table received_document_events add column correlation_id text`.execute(db);
}
