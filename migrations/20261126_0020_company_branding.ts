import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // What the printed representation (the RI PDF) shows of the company, set by the control plane and kept only here,
  // never copied into documents. The logo is stored as normalised at input (8-bit RGB PNG flattened on white, not interlaced) with its
  // sha256, by which the renderer caches it; its four columns are set or cleared together.
  await sql`
    alter table companies
      add column print_logo bytea,
      add column print_logo_sha256 text,
      add column print_logo_width int,
      add column print_logo_height int,
      add column print_format text not null default 'a4',
      add column print_footer text`.execute(db);
  await sql`alter table companies add constraint companies_print_logo_whole check (num_nulls(print_logo, print_logo_sha256, print_logo_width, print_logo_height) in (0, 4))`.execute(
    db,
  );
  await sql`alter table companies add constraint companies_print_format check (print_format in ('a4', 'carta', '80mm', '58mm'))`.execute(
    db,
  );
}
