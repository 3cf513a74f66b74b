import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Documents are sent and polled through outbound_work (migration 0015) instead of being found in the documents
  // table through partial indexes. Each waiting at upgrade is queued as it stood: a send (queued, or sending) due
  // when it was, or, held by a worker, when that worker's lease runs out (under the same lease, its attempt
  // counted); a poll (in process) due at its next question. The two partial indexes over the ten years of documents
  // go with them.
  await sql`
    insert into outbound_work (target, item_id, environment, due_at, lease_id, attempts)
    select 'document.send', id, environment,
      case when send_lease_id is not null and send_lease_until > now() then send_lease_until else coalesce(send_due_at, send_lease_until, now()) end,
      case when send_lease_id is not null and send_lease_until > now() then send_lease_id end,
      case when send_lease_id is not null and send_lease_until > now() then 1 else 0 end
    from documents where status in ('queued', 'sending')`.execute(db);
  await sql`
    insert into outbound_work (target, item_id, environment, due_at)
    select 'document.poll', id, environment, coalesce(next_poll_at, now()) from documents where status = 'in_process'`.execute(
    db,
  );
  await sql`drop index documents_due_sends`.execute(db);
  await sql`drop index documents_due_polls`.execute(db);
}
