// What other modules read of companies (docs/architecture.md): they take any layer's database and read companies'
// tables here, so no other module names them.
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { AnyDb } from '../../platform/db/database.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import type { CompaniesTables } from './tables.js';

export interface ReceiverCompanyRow {
  id: string;
  rnc: string;
  capabilities: string[];
}

/** Every company's id, in order. */
export async function companyIds(db: AnyDb): Promise<string[]> {
  const rows = await tablesOf<CompaniesTables>(db).selectFrom('companies').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** The company's RNC, its legal name and id; undefined when there is none. */
export function companySummary(
  db: AnyDb,
  companyId: string,
): Promise<{ id: string; rnc: string; legal_name: string } | undefined> {
  return tablesOf<CompaniesTables>(db)
    .selectFrom('companies')
    .select(['id', 'rnc', 'legal_name'])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

/** A company id as given, or the id of the company with that RNC; null when there is none. */
export async function companyIdByIdOrRnc(db: AnyDb, given: string): Promise<string | null> {
  const row = await tablesOf<CompaniesTables>(db)
    .selectFrom('companies')
    .select('id')
    .where((eb) => eb.or([eb('id', '=', given), eb('rnc', '=', given)]))
    .executeTakeFirst();
  return row?.id ?? null;
}

/**
 * The company's permissions as a scalar subquery of the caller's statement, so that a read of another module's row
 * with its company's permissions stays one statement (api-keys' key lookup, a hot path).
 */
export function companyPermissionsOf(companyId: Expression<string>): RawBuilder<'current' | 'suspended'> {
  return sql<'current' | 'suspended'>`(select permissions from companies where id = ${companyId})`;
}

/**
 * The company's RNC as a scalar subquery of the caller's statement (null when there is no such company), so that a
 * read of another module's rows with their company's RNC stays one statement (webhooks' outbox claim).
 */
export function companyRncOf(companyId: Expression<string | null>): RawBuilder<string | null> {
  return sql<string | null>`(select rnc from companies where id = ${companyId})`;
}

/** Takes the company's row lock, waiting for whoever holds it: for work serialised per company. */
export async function lockCompanyRow(trx: AnyTrx, companyId: string): Promise<void> {
  await tablesOf<CompaniesTables>(trx)
    .selectFrom('companies')
    .select('id')
    .where('id', '=', companyId)
    .forUpdate()
    .execute();
}

/** The service segment of the company's receiver URLs: its receiver_segment, or its RNC when it has none. */
export async function receiverSegmentOf(db: AnyDb | AnyTrx, companyId: string): Promise<string | undefined> {
  const row = await tablesOf<CompaniesTables>(db)
    .selectFrom('companies')
    .select(['rnc', 'receiver_segment'])
    .where('id', '=', companyId)
    .executeTakeFirst();
  return row === undefined ? undefined : (row.receiver_segment ?? row.rnc);
}

/** Active certificates whose validity ends after `now` and by `horizon`. */
export function certificatesExpiringBy(
  db: AnyDb,
  now: Date,
  horizon: Date,
): Promise<{ id: string; company_id: string; not_after: Date }[]> {
  return tablesOf<CompaniesTables>(db)
    .selectFrom('company_certificates')
    .select(['id', 'company_id', 'not_after'])
    .where('status', '=', 'active')
    .where('not_after', '>', now)
    .where('not_after', '<=', horizon)
    .execute();
}

/**
 * The company whose receiver a service segment names: its receiver_segment, or, for a company without one, its RNC.
 * The segment arrives lower-cased (platform/http/receiver-path.ts).
 */
export async function companyBySegment(db: AnyDb, segment: string): Promise<ReceiverCompanyRow | undefined> {
  const companies = tablesOf<CompaniesTables>(db);
  const bySegment = await companies
    .selectFrom('companies')
    .select(['id', 'rnc', 'capabilities'])
    .where('receiver_segment', '=', segment)
    .executeTakeFirst();
  if (bySegment !== undefined) return bySegment;
  return companies
    .selectFrom('companies')
    .select(['id', 'rnc', 'capabilities'])
    .where('rnc', '=', segment)
    .where('receiver_segment', 'is', null)
    .executeTakeFirst();
}

/** What a receiver needs to say where a company's receiver is, by its id. */
export function receiverOfCompany(
  db: AnyDb,
  companyId: string,
): Promise<(ReceiverCompanyRow & { receiver_segment: string | null }) | undefined> {
  return tablesOf<CompaniesTables>(db)
    .selectFrom('companies')
    .select(['id', 'rnc', 'capabilities', 'receiver_segment'])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

/** The company named by an RNC or a company id (RECEIVER_LOCAL_COMPANY). */
export function companyByRncOrId(db: AnyDb, value: string): Promise<ReceiverCompanyRow | undefined> {
  return tablesOf<CompaniesTables>(db)
    .selectFrom('companies')
    .select(['id', 'rnc', 'capabilities'])
    .where((eb) => eb.or([eb('rnc', '=', value), eb('id', '=', value)]))
    .executeTakeFirst();
}
