import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Commercial responses (ACECF) are delivered through outbound_work (migration 0015) instead of a job per attempt.
  // Each delivery waiting at upgrade is queued as it stood: due when its next attempt was, or, held by a worker, when
  // that worker's lease runs out (under the same lease), with its attempts. The partial index the jobs did not need
  // either goes.
  await sql`
    insert into outbound_work (target, item_id, environment, due_at, lease_id, attempts)
    select 'acecf.' || target, received_document_id, environment,
      case when lease_until > now() then lease_until else coalesce(next_attempt_at, now()) end,
      case when lease_until > now() then lease_id end,
      attempts
    from received_response_deliveries where status in ('pending', 'failed')`.execute(db);
  await sql`drop index received_response_deliveries_open`.execute(db);
}
