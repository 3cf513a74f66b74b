import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Webhook deliveries are claimed from outbound_work (migration 0015) instead of from webhook_deliveries itself.
  // Each delivery waiting at upgrade is queued as it stood: due now (pending) or when its retry is (failed), or, held
  // by a worker, when that worker's lease runs out (the old rows knew a lease by its end alone), with its attempts.
  // The partial index the old claim walked goes: it kept a dead entry for every delivery settled until VACUUM.
  await sql`
    insert into outbound_work (target, item_id, environment, due_at, lease_id, attempts)
    select 'webhook.delivery', id, environment,
      case when lease_until > now() then lease_until else coalesce(next_attempt_at, now()) end,
      case when lease_until > now() then 'lse_migrated' end,
      attempts
    from webhook_deliveries where status in ('pending', 'failed')`.execute(db);
  await sql`drop index webhook_deliveries_waiting`.execute(db);
}
