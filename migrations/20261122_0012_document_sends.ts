import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A document waiting to go to DGII is its own send job: `send_due_at` is when a worker may next take it (queued:
  // at once, or after a retry's backoff; sending: when its worker's lease runs out, or when an uncertain send may
  // be asked about). Workers claim the due ones in batches with SKIP LOCKED (sending/delivery.ts), instead of a
  // queue job per document and attempt. Documents queued before this migration are due at once, or when the lease
  // of the worker holding them runs out.
  await sql`alter table documents add column send_due_at timestamptz`.execute(db);
  await sql`update documents set send_due_at = coalesce(send_lease_until, now()) where status in ('queued', 'sending')`.execute(
    db,
  );
  await sql`create index documents_due_sends on documents (send_due_at) where status in ('queued', 'sending')`.execute(
    db,
  );
}
