import { sql, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { SequenceRangesTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';

export type RangeRow = Selectable<SequenceRangesTable>;

type Executor = Db | Trx;

export async function lockRangesOfType(trx: Trx, companyId: string, environment: FiscalEnvironment, ecfType: string): Promise<void> {
  // Serialises registrations (and allocations) of one company and type: two overlapping ranges registered at the
  // same moment would otherwise both see no overlap.
  await sql`select pg_advisory_xact_lock(hashtext(${`sequences:${companyId}:${environment}:${ecfType}`}))`.execute(trx);
}

export function findOverlapping(trx: Trx, companyId: string, environment: FiscalEnvironment, ecfType: string, first: number, last: number): Promise<RangeRow | undefined> {
  return trx
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('ecf_type', '=', ecfType)
    .where('first_number', '<=', last)
    .where('last_number', '>=', first)
    .executeTakeFirst();
}

export async function insertRange(trx: Trx, row: RangeRow): Promise<RangeRow> {
  return trx.insertInto('sequence_ranges').values(row).returningAll().executeTakeFirstOrThrow();
}

export function listRanges(db: Executor, companyId: string, environment: FiscalEnvironment, ecfType?: string): Promise<RangeRow[]> {
  let query = db.selectFrom('sequence_ranges').selectAll().where('company_id', '=', companyId).where('environment', '=', environment);
  if (ecfType !== undefined) query = query.where('ecf_type', '=', ecfType);
  return query.orderBy('ecf_type').orderBy('first_number').execute();
}

export function findRange(db: Executor, companyId: string, environment: FiscalEnvironment, id: string): Promise<RangeRow | undefined> {
  return db.selectFrom('sequence_ranges').selectAll().where('id', '=', id).where('company_id', '=', companyId).where('environment', '=', environment).executeTakeFirst();
}

/** Burned numbers per range. */
export async function burnedCounts(db: Executor, rangeIds: readonly string[]): Promise<Map<string, number>> {
  if (rangeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('sequence_burned')
    .select((eb) => ['range_id', eb.fn.countAll<number>().as('count')])
    .where('range_id', 'in', rangeIds)
    .groupBy('range_id')
    .execute();
  return new Map(rows.map((row) => [row.range_id, row.count]));
}

/** The first range of the type with numbers left, not expired on `today` (yyyy-mm-dd), locked for update. */
export function firstUsableRange(trx: Trx, companyId: string, environment: FiscalEnvironment, ecfType: string, today: string): Promise<RangeRow | undefined> {
  return trx
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('ecf_type', '=', ecfType)
    .whereRef('next_number', '<=', 'last_number')
    .where((eb) => eb.or([eb('expires_on', 'is', null), eb('expires_on', '>=', today)]))
    .orderBy('first_number')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

export async function advance(trx: Trx, rangeId: string, taken: number): Promise<void> {
  await trx.updateTable('sequence_ranges').set({ next_number: taken + 1 }).where('id', '=', rangeId).where('next_number', '=', taken).execute();
}

/** Numbers never handed out, across the usable ranges of a type. */
export async function remainingOfType(trx: Trx, companyId: string, environment: FiscalEnvironment, ecfType: string, today: string): Promise<number> {
  const row = await trx
    .selectFrom('sequence_ranges')
    .select(sql<number>`coalesce(sum(last_number - next_number + 1), 0)::int8`.as('remaining'))
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('ecf_type', '=', ecfType)
    .where((eb) => eb.or([eb('expires_on', 'is', null), eb('expires_on', '>=', today)]))
    .executeTakeFirstOrThrow();
  return row.remaining;
}

export async function insertBurned(trx: Trx, row: { companyId: string; environment: FiscalEnvironment; encf: string; rangeId: string; cause: string; burnedAt: Date }): Promise<void> {
  await trx
    .insertInto('sequence_burned')
    .values({ company_id: row.companyId, environment: row.environment, encf: row.encf, range_id: row.rangeId, cause: row.cause, burned_at: row.burnedAt, annulment_id: null })
    .onConflict((conflict) => conflict.columns(['company_id', 'environment', 'encf']).doUpdateSet({ cause: row.cause, burned_at: row.burnedAt }))
    .execute();
}

export async function deleteBurned(trx: Trx, companyId: string, environment: FiscalEnvironment, encf: string): Promise<void> {
  await trx.deleteFrom('sequence_burned').where('company_id', '=', companyId).where('environment', '=', environment).where('encf', '=', encf).where('annulment_id', 'is', null).execute();
}

/** Numbers held by active offline blocks and not yet reported used, per range. */
export async function reservedCounts(db: Executor, rangeIds: readonly string[]): Promise<Map<string, number>> {
  if (rangeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('sequence_allocations as a')
    .select(['a.range_id', sql<number>`sum(a.last_number - a.first_number + 1 - (select count(*) from sequence_allocation_uses u where u.allocation_id = a.id))::int8`.as('reserved')])
    .where('a.range_id', 'in', rangeIds)
    .where('a.status', '=', 'active')
    .groupBy('a.range_id')
    .execute();
  return new Map(rows.map((row) => [row.range_id, row.reserved]));
}
