import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Work waiting to go out (platform/work): one row per item waiting, deleted when it settles, so a claim walks the
  // work waiting and never the history kept (the history tables keep their rows for ten years; a partial index over
  // them keeps a dead entry for every settled row until VACUUM, and claims walked those). `due_at`: when a worker may
  // take it next; while a worker holds it (`lease_id`), when that lease runs out. `attempts`: attempts started,
  // counted when claimed, so one whose worker died is counted too.
  await sql`
    create table outbound_work (
      target text not null,
      item_id text not null,
      environment text not null,
      due_at timestamptz not null,
      lease_id text,
      attempts integer not null default 0,
      primary key (target, item_id)
    ) with (fillfactor = 70, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000, autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 1000)`.execute(
    db,
  );
  await sql`create index outbound_work_due on outbound_work (target, environment, due_at)`.execute(db);

  // Annulments waiting at upgrade: pending ones due when their job was (now, at the latest); one left `sending` (its
  // worker held no lease, so it may have been stuck for ever) is due now: an ANECF sent twice annuls nothing twice.
  await sql`
    insert into outbound_work (target, item_id, environment, due_at, lease_id, attempts)
    select 'annulment.send', id, environment, now(), null, attempts from annulments where status in ('pending', 'sending')`.execute(
    db,
  );
}
