import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The documents on their way to DGII are counted through documents_due_sends (queued, sending) and
  // documents_due_polls (in_process), which every worker keeps anyway. This third index over the same rows cost an
  // index entry for each step of each document (queued, sending, in_process, every poll) and served one health count.
  await sql`drop index documents_pending`.execute(db);
}
