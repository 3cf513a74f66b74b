import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Domain events wait to be fanned out as rows of outbound_work (migration 0015, target `outbox`), written with the
  // event and deleted when it is fanned out, instead of behind a partial index of the events kept. Each event not yet
  // fanned out at upgrade is queued, due when it occurred (the fan-out takes the oldest first).
  await sql`
    insert into outbound_work (target, item_id, environment, due_at)
    select 'outbox', id, environment, occurred_at from domain_events where dispatched_at is null`.execute(db);
  await sql`drop index domain_events_undispatched`.execute(db);
}
