import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Offline blocks: contiguous numbers reserved for one device (a point of sale that must issue while offline).
  // Taken from a range like any number (the range's next_number moves past the block), so nobody else gets them.
  await sql`
    create table sequence_allocations (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null,
      ecf_type text not null,
      range_id text not null references sequence_ranges (id),
      device_id text not null,
      first_number bigint not null,
      last_number bigint not null,
      status text not null check (status in ('active', 'exhausted', 'cancelled', 'expired')),
      expires_at timestamptz,
      created_at timestamptz not null,
      ended_at timestamptz,
      check (last_number >= first_number)
    )`.execute(db);
  await sql`create index sequence_allocations_listing on sequence_allocations (company_id, environment, created_at desc)`.execute(
    db,
  );
  // Numbers of a block a device reported as issued (by submitting the signed XML).
  await sql`
    create table sequence_allocation_uses (
      allocation_id text not null references sequence_allocations (id),
      encf text not null,
      document_id text,
      used_at timestamptz not null,
      primary key (allocation_id, encf)
    )`.execute(db);

  // Idempotency-Key of document creation: the first response is kept and replayed for the same key and body.
  await sql`
    create table idempotency_keys (
      company_id text not null references companies (id),
      environment text not null,
      key text not null,
      request_sha256 text not null,
      state text not null check (state in ('in_flight', 'done')),
      response_status integer,
      response_body jsonb,
      created_at timestamptz not null,
      primary key (company_id, environment, key)
    )`.execute(db);
}
