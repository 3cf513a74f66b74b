import type { Db } from '../../platform/db/database.js';

export interface ReceiverCompanyRow {
  id: string;
  rnc: string;
  capabilities: string[];
}

/**
 * The company whose receiver a service segment names: its receiver_segment, or, for a company without one, its RNC.
 * The segment arrives lower-cased (platform/http/receiver-path.ts).
 */
export async function companyBySegment(db: Db, segment: string): Promise<ReceiverCompanyRow | undefined> {
  const bySegment = await db
    .selectFrom('companies')
    .select(['id', 'rnc', 'capabilities'])
    .where('receiver_segment', '=', segment)
    .executeTakeFirst();
  if (bySegment !== undefined) return bySegment;
  return db
    .selectFrom('companies')
    .select(['id', 'rnc', 'capabilities'])
    .where('rnc', '=', segment)
    .where('receiver_segment', 'is', null)
    .executeTakeFirst();
}

/** The service segment that names a company's receiver: companyBySegment's rule, the other way round. */
export function serviceSegmentOf(company: { rnc: string; receiver_segment: string | null }): string {
  return company.receiver_segment ?? company.rnc;
}

/** What companyOf needs to say where a company's receiver is, by its id. */
export function receiverOfCompany(
  db: Db,
  companyId: string,
): Promise<(ReceiverCompanyRow & { receiver_segment: string | null }) | undefined> {
  return db
    .selectFrom('companies')
    .select(['id', 'rnc', 'capabilities', 'receiver_segment'])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

/** The company named by RECEIVER_LOCAL_COMPANY: an RNC or a company id. */
export function companyByRncOrId(db: Db, value: string): Promise<ReceiverCompanyRow | undefined> {
  return db
    .selectFrom('companies')
    .select(['id', 'rnc', 'capabilities'])
    .where((eb) => eb.or([eb('rnc', '=', value), eb('id', '=', value)]))
    .executeTakeFirst();
}
