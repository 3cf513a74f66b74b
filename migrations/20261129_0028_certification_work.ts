import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The certification lane and its approvals are work of the engine now (issue 44): a lane is an item of target
  // `certification.lane` (its id the process id), an approval case's sending one of `certification.acecf`
  // (`<process id>/<case key>`). The release before found lanes by their cases and sent approvals inline, so an
  // upgrade mid-run queues, due now, every active lane with cases handed to it, and every approval marked sent
  // without DGII's answer (its worker stopped between the two). A lane's lease row of the release before (it held
  // the same row while a step ran) is kept: it falls due when its lease runs out.
  await sql`
    insert into outbound_work (target, item_id, environment, due_at)
    select 'certification.lane', p.id, p.environment, now()
    from certification_processes p
    where p.status = 'active' and exists (
      select 1 from certification_cases c
      where c.process_id = p.id and c.queued_at is not null and c.status in ('pending', 'sent'))
    on conflict (target, item_id) do nothing`.execute(db);
  await sql`
    insert into outbound_work (target, item_id, environment, due_at)
    select 'certification.acecf', c.process_id || '/' || c.case_key, p.environment, now()
    from certification_cases c join certification_processes p on p.id = c.process_id
    where p.status = 'active' and c.kind = 'ACECF' and c.status = 'sent'
    on conflict (target, item_id) do nothing`.execute(db);
}
