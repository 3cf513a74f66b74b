import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The recurring jobs' due times, one row per job (issue 46): the scheduler that moves `due_at` to a job's next due
  // time, in the transaction that enqueues the job, is the one that starts it, however many schedulers run
  // (platform/queue/schedule-keeper.ts). pg-boss's cron, which could start a job twice, is no longer used.
  await sql`
    create table schedule_runs (
      job text primary key,
      due_at timestamptz not null,
      fired_at timestamptz
    )`.execute(db);

  // At most one rolling pass over the archive under way. A pass opened by a verifier whose lease had run out (a
  // process paused past it) could sit beside the one continued; such a second pass was never to be continued and
  // goes, the newest staying (the one the verifier continued).
  await sql`
    delete from archive_passes p
    where p.origin = 'rolling' and p.completed_at is null
      and exists (select 1 from archive_passes q where q.origin = 'rolling' and q.completed_at is null
        and (q.started_at, q.id) > (p.started_at, p.id))`.execute(db);
  await sql`create unique index archive_passes_one_rolling on archive_passes (origin)
    where origin = 'rolling' and completed_at is null`.execute(db);
}
