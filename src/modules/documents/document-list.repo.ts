// The company's documents a page at a time, newest first by (created_at, id), with the list's filters. Each filter
// has an index in the list's order (migrations 0003 and 0029): the listing index for the company's documents, the
// unique e-NCF index, the buyer's, and the issue day's. An issue-day span is the one filter the order does not
// follow: a document is made on its FechaEmision or later, days or years later (signed XML handed in, a
// contingency), so PostgreSQL cannot know how far back along the listing index the span's documents lie, and a
// span of an old month read that way goes through every document made since. A span of days is read a day at a
// time instead: each day's documents are in the list's order in the issue day's index, and a page is the newest of
// each day's newest, whatever the span's age.
import { sql, type ExpressionBuilder, type SqlBool, type Expression } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import { olderThan } from '../../platform/db/older-than.js';
import type { DocumentRow } from './documents.repo.js';
import type { BuyerDeliveryStatus, DocumentStatus, DocumentsTables } from './tables.js';

export interface ListFilter {
  status?: DocumentStatus | undefined;
  ecfType?: string | undefined;
  delivery?: BuyerDeliveryStatus | undefined;
  encf?: string | undefined;
  rncComprador?: string | undefined;
  /** Issue days (issued_on), yyyy-MM-dd, both inclusive. */
  issuedFrom?: string | undefined;
  issuedTo?: string | undefined;
  limit: number;
  /** The last row of the previous page. */
  after?: { createdAt: Date; id: string } | undefined;
}

/**
 * The longest span read a day at a time: a page of a span costs at most one index probe and `limit + 1` rows a day,
 * a year's span 366 probes. A longer span is read along the listing index, where a recent span's page is found at
 * once.
 */
export const daySpanLimit = 366;

/** The days from `from` to `to`, both yyyy-MM-dd and counted in UTC (a calendar day has no time zone). */
function daysIn(from: string, to: string): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
}

type Documents = ExpressionBuilder<DocumentsTables, 'documents'>;

/** The filter's conditions but the issue days', on the company's documents in the environment. */
function listed(eb: Documents, companyId: string, environment: FiscalEnvironment, filter: ListFilter) {
  const conditions: Expression<SqlBool>[] = [eb('company_id', '=', companyId), eb('environment', '=', environment)];
  if (filter.status !== undefined) conditions.push(eb('status', '=', filter.status));
  if (filter.ecfType !== undefined) conditions.push(eb('ecf_type', '=', filter.ecfType));
  if (filter.encf !== undefined) conditions.push(eb('encf', '=', filter.encf));
  if (filter.rncComprador !== undefined) conditions.push(eb('rnc_comprador', '=', filter.rncComprador));
  const delivery = filter.delivery;
  if (delivery !== undefined)
    conditions.push(
      eb.exists(
        eb
          .selectFrom('document_deliveries as dd')
          .select('dd.document_id')
          .whereRef('dd.document_id', '=', 'documents.id')
          .where('dd.status', '=', delivery),
      ),
    );
  if (filter.after !== undefined) conditions.push(olderThan(filter.after));
  return eb.and(conditions);
}

export function listDocuments(
  db: Db<DocumentsTables>,
  companyId: string,
  environment: FiscalEnvironment,
  filter: ListFilter,
): Promise<DocumentRow[]> {
  const { issuedFrom: from, issuedTo: to } = filter;
  // An e-NCF or a buyer narrows the documents further than a span does, along its own index.
  const byDay =
    from !== undefined &&
    to !== undefined &&
    filter.encf === undefined &&
    filter.rncComprador === undefined &&
    daysIn(from, to) <= daySpanLimit;
  if (byDay) {
    // The span's days as a series of integers, whose length PostgreSQL knows when it plans.
    const days = sql<{
      day: string;
    }>`(select ${from}::date + n as day from generate_series(0, ${daysIn(from, to) - 1}::int) as n)`;
    return db
      .selectFrom(days.as('span'))
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom('documents')
            .selectAll('documents')
            .where((inner) => listed(inner, companyId, environment, filter))
            .whereRef('documents.issued_on', '=', 'span.day')
            .orderBy('documents.created_at', 'desc')
            .orderBy('documents.id', 'desc')
            .limit(filter.limit + 1)
            .as('d'),
        (join) => join.onTrue(),
      )
      .selectAll('d')
      .orderBy('d.created_at', 'desc')
      .orderBy('d.id', 'desc')
      .limit(filter.limit + 1)
      .execute();
  }
  let query = db
    .selectFrom('documents')
    .selectAll()
    .where((eb) => listed(eb, companyId, environment, filter));
  if (from !== undefined) query = query.where('issued_on', '>=', from);
  if (to !== undefined) query = query.where('issued_on', '<=', to);
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}
