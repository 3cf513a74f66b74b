import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Every lease is the work engine's now (platform/work, issue 44): an item's lease on its outbound_work row, and the
  // lease of one thing held by one worker (the archive verifier, a certification lane) on a row of the same table.
  // The columns of the leases before it go: webhook deliveries' and commercial responses' were written (as null)
  // and read nowhere since their work moved to the engine (migrations 0016 and 0017); the lane's and the verifier's
  // moved to the engine with this release. A lease running at the upgrade is not carried over: the processes that
  // held it ran the release before, which cannot run on this schema.
  await sql`alter table webhook_deliveries drop column lease_until`.execute(db);
  await sql`alter table received_response_deliveries drop column lease_id, drop column lease_until`.execute(db);
  await sql`alter table certification_processes drop column lane_lease_until`.execute(db);
  await sql`alter table archive_verifier drop column holder, drop column lease_until`.execute(db);
}
