import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // DGII's public taxpayer registry (the RNC listing), one row per RNC or cédula, replaced in place by each import.
  // Values are kept as DGII writes them (status, regime); the API maps them. `imported_at` says how fresh a row is.
  await sql`
    create table taxpayers (
      tax_id text primary key,
      legal_name text not null,
      trade_name text,
      economic_activity text,
      started_on date,
      status text not null,
      payment_regime text,
      imported_at timestamptz not null,
      check (tax_id ~ '^([0-9]{9}|[0-9]{11})$')
    )`.execute(db);
}
