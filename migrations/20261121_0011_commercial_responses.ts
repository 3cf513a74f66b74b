import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The company's commercial response (ACECF) to a received e-CF: one per received document (the primary key decides
  // between concurrent requests). The signed bytes are the received document's acecf-xml artefact.
  await sql`
    create table received_commercial_responses (
      received_document_id text primary key references received_documents (id),
      company_id text not null references companies (id),
      environment text not null,
      decision text not null check (decision in ('approved', 'rejected')),
      reason text,
      fecha_hora_aprobacion text not null,
      created_at timestamptz not null,
      check ((decision = 'rejected') = (reason is not null))
    )`.execute(db);

  // Its deliveries: to the issuer's receiver (found through DGII's directory) and to DGII's ACECF service, each with
  // its own state, attempts and lease; the stored bytes are sent, never re-signed.
  await sql`
    create table received_response_deliveries (
      received_document_id text not null references received_commercial_responses (received_document_id),
      target text not null check (target in ('issuer', 'dgii')),
      company_id text not null references companies (id),
      environment text not null,
      status text not null check (status in ('pending', 'delivered', 'failed', 'exhausted')),
      attempts integer not null default 0,
      last_error text,
      answer jsonb,
      target_url text,
      next_attempt_at timestamptz,
      lease_id text,
      lease_until timestamptz,
      delivered_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (received_document_id, target)
    )`.execute(db);
  await sql`create index received_response_deliveries_open on received_response_deliveries (status, next_attempt_at) where status in ('pending', 'failed')`.execute(
    db,
  );
}
