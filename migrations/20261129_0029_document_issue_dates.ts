import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The console's list filters documents by issue date and by buyer (issue 45). FechaEmision is kept as DGII writes
  // it, dd-MM-yyyy, which neither sorts nor compares: issued_on is the same day as a date, written with the row
  // (documents.repo.ts, from fiscal/dates.ts). Null where the text is not a real day (a signed XML handed in is held
  // to DGII's schema only, whose pattern admits 31-02-2026).
  await sql`alter table documents add column issued_on date`.execute(db);
  // The documents stored before: the day read from the text the way parseDgiiDate reads it, without an error for a
  // text that is not one (date + interval never throws; a day that rolled over into the next month is no day).
  await sql`
    with parts as materialized (
      select id, regexp_match(fecha_emision, '^(\\d{1,2})-(\\d{1,2})-(\\d{4})$')::int[] as dmy
      from documents
    ), days as (
      select id, dmy, (date '2000-01-01' + make_interval(
        years => dmy[3] - 2000, months => dmy[2] - 1, days => dmy[1] - 1))::date as day
      from parts where dmy is not null
    )
    update documents d set issued_on = days.day
    from days
    where d.id = days.id
      and extract(day from days.day) = days.dmy[1]
      and extract(month from days.day) = days.dmy[2]
      and extract(year from days.day) = days.dmy[3]`.execute(db);
  // The list's filters, each a range of an index in the list's order (newest first by id), so a page of a company's
  // documents for one buyer, or for one day, reads the page's rows and no others; a span of days reads that span's
  // rows and sorts them. An e-NCF has its unique index already (company, environment, encf).
  await sql`create index documents_by_buyer on documents (company_id, environment, rnc_comprador, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index documents_by_issue_day on documents (company_id, environment, issued_on, created_at desc, id desc)`.execute(
    db,
  );
}
