import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table companies (
      id text primary key,
      rnc text not null unique,
      legal_name text not null,
      trade_name text,
      address text,
      municipality text,
      province text,
      plan text not null,
      capabilities text[] not null,
      permissions text not null check (permissions in ('current', 'suspended')),
      suspended_reason text,
      certification_enabled boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table company_certificates (
      id text primary key,
      company_id text not null references companies (id),
      status text not null check (status in ('active', 'replaced')),
      subject text not null,
      issuer text not null,
      serial_number text not null,
      not_before timestamptz not null,
      not_after timestamptz not null,
      fingerprint_sha256 text not null,
      certificate_pem text not null,
      chain_pem text[] not null,
      private_key_sealed text not null,
      installed_at timestamptz not null default now(),
      replaced_at timestamptz
    )`.execute(db);
  await sql`create unique index company_certificates_one_active on company_certificates (company_id) where status = 'active'`.execute(
    db,
  );

  await sql`
    create table api_keys (
      id text primary key,
      company_id text not null references companies (id),
      environment text not null check (environment in ('TEST', 'CERT', 'PRODUCTION')),
      name text not null,
      scopes text[] not null,
      key_hash text not null,
      display_prefix text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz
    )`.execute(db);
  await sql`create index api_keys_company on api_keys (company_id, created_at desc)`.execute(db);

  await sql`
    create table cloud_messages (
      id text primary key,
      label text not null,
      company_id text,
      received_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table settings (
      key text primary key,
      value text not null,
      updated_at timestamptz not null default now()
    )`.execute(db);
}
