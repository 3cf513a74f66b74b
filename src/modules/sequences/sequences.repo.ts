import { sql, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { SequenceRangesTable, SequencesTables } from './tables.js';
import { executePrepared } from '../../platform/db/prepared.js';
import type { Trx } from '../../platform/db/transact.js';
import { tenantRow } from '../../platform/db/tenant-row.js';

export type RangeRow = Selectable<SequenceRangesTable>;

type Executor = Db<SequencesTables> | Trx<SequencesTables>;

export async function lockRangesOfType(
  trx: Trx<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  ecfType: string,
): Promise<void> {
  // Serialises registrations (and allocations) of one company and type: two overlapping ranges registered at the
  // same moment would otherwise both see no overlap.
  await sql`select pg_advisory_xact_lock(hashtext(${`sequences:${companyId}:${environment}:${ecfType}`}))`.execute(trx);
}

export function findOverlapping(
  trx: Trx<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  ecfType: string,
  first: number,
  last: number,
): Promise<RangeRow | undefined> {
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

export async function insertRange(trx: Trx<SequencesTables>, row: RangeRow): Promise<RangeRow> {
  return trx.insertInto('sequence_ranges').values(row).returningAll().executeTakeFirstOrThrow();
}

export function listRanges(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  ecfType?: string,
): Promise<RangeRow[]> {
  let query = db
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment);
  if (ecfType !== undefined) query = query.where('ecf_type', '=', ecfType);
  return query.orderBy('ecf_type').orderBy('first_number').execute();
}

export function findRange(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<RangeRow | undefined> {
  return db
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
    .then((row) => tenantRow(row, companyId, environment));
}

/** Burned numbers per range that no accepted annulment has annulled. */
export async function burnedCounts(db: Executor, rangeIds: readonly string[]): Promise<Map<string, number>> {
  if (rangeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('sequence_burned')
    .select((eb) => ['range_id', eb.fn.countAll<number>().as('count')])
    .where('range_id', 'in', rangeIds)
    .where(
      sql<boolean>`not exists (select 1 from annulments a where a.id = sequence_burned.annulment_id and a.status = 'accepted')`,
    )
    .groupBy('range_id')
    .execute();
  return new Map(rows.map((row) => [row.range_id, row.count]));
}

interface UsableRangeOf {
  companyId: string;
  environment: FiscalEnvironment;
  ecfType: string;
  /** yyyy-mm-dd in GMT-4: a range expiring today is still usable. */
  today: string;
}

/** The first range of the type with numbers left and not expired, locked for update. */
export function firstUsableRange(trx: Trx<SequencesTables>, of: UsableRangeOf): Promise<RangeRow | undefined> {
  return trx
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('company_id', '=', of.companyId)
    .where('environment', '=', of.environment)
    .where('ecf_type', '=', of.ecfType)
    .whereRef('next_number', '<=', 'last_number')
    .where((eb) => eb.or([eb('expires_on', 'is', null), eb('expires_on', '>=', of.today)]))
    .orderBy('first_number')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Takes the next numbers of the first usable range of the type, one for each of `causes` (fewer when the range has
 * fewer left), and records each as burned with its cause, in ONE statement: it is atomic without a transaction, costs
 * one round trip, and holds the range's row lock only while it runs (this is the hot path of every document created;
 * the service takes the numbers of the documents created side by side together). A burned row is its number's account
 * until the work it was taken for settles it. The e-NCF is written as encfOf writes it: E, the type, ten digits.
 * Undefined when no range is usable, or when a competitor used up the range this statement waited for.
 */
export async function takeNextAsBurned(
  db: Executor,
  of: UsableRangeOf & { causes: readonly string[]; burnedAt: Date },
): Promise<{ range: RangeRow; encfs: string[] } | undefined> {
  // FOR UPDATE reads the range's latest version once its lock is had (READ COMMITTED re-reads a row it waited for),
  // so `taking` is counted on what the range holds when the update runs. The update's WHERE must hold of both the
  // version its snapshot sees and the latest (only a row passing it on the first is re-checked on the second), and the
  // numbers are counted back from the next_number it wrote, never from a value read before.
  const result = await executePrepared(
    db,
    sql<RangeRow & { first: number; taking: number; encfs: string[] }>`
    with usable as (
      select id, least(${of.causes.length}::int8, last_number - next_number + 1) as taking
      from sequence_ranges
      where company_id = ${of.companyId} and environment = ${of.environment} and ecf_type = ${of.ecfType}
        and next_number <= last_number and (expires_on is null or expires_on >= ${of.today})
      order by first_number limit 1
      for update
    ), taken as (
      update sequence_ranges as range set next_number = range.next_number + usable.taking
      from usable where range.id = usable.id and range.next_number + usable.taking - 1 <= range.last_number
      returning range.*, range.next_number - usable.taking as first, usable.taking
    ), numbers as (
      select taken.company_id, taken.environment, taken.id as range_id, number.position,
        'E' || taken.ecf_type || lpad(number.sequence::text, 10, '0') as encf
      from taken, generate_series(taken.first, taken.first + taken.taking - 1) with ordinality as number(sequence, position)
    ), burned as (
      insert into sequence_burned (company_id, environment, encf, range_id, cause, burned_at, annulment_id)
      select company_id, environment, encf, range_id, (${of.causes}::text[])[position], ${of.burnedAt}, null from numbers
    )
    select taken.*, (select array_agg(encf order by position) from numbers) as encfs from taken`,
  );
  const row = result.rows[0];
  if (row === undefined) return undefined;
  const { first, taking, encfs, ...range } = row;
  return { range, encfs };
}

/** Numbers never handed out, across the usable ranges of a type. */
export async function remainingOfType(
  trx: Trx<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  ecfType: string,
  today: string,
): Promise<number> {
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

/**
 * Replaces the cause of a number its take burned provisionally. A number whose work settled it (its document stored)
 * has no such row any more and stays used: the caller may have seen an error although the commit went through (the
 * database cut while its answer was on the way), and must not burn a number a document carries.
 */
export async function recauseBurned(
  trx: Trx<SequencesTables>,
  row: { companyId: string; environment: FiscalEnvironment; encf: string; cause: string; burnedAt: Date },
): Promise<void> {
  await trx
    .updateTable('sequence_burned')
    .set({ cause: row.cause, burned_at: row.burnedAt })
    .where('company_id', '=', row.companyId)
    .where('environment', '=', row.environment)
    .where('encf', '=', row.encf)
    .where('annulment_id', 'is', null)
    .execute();
}

/** Unexecuted: the caller sends it with the writes of the work that settles the number. */
export function deleteBurned(executor: Executor, companyId: string, environment: FiscalEnvironment, encf: string) {
  return executor
    .deleteFrom('sequence_burned')
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('encf', '=', encf)
    .where('annulment_id', 'is', null);
}

/** Numbers held by active offline blocks and not yet reported used, per range. */
export async function reservedCounts(db: Executor, rangeIds: readonly string[]): Promise<Map<string, number>> {
  if (rangeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('sequence_allocations as a')
    .select([
      'a.range_id',
      sql<number>`sum(a.last_number - a.first_number + 1 - (select count(*) from sequence_allocation_uses u where u.allocation_id = a.id))::int8`.as(
        'reserved',
      ),
    ])
    .where('a.range_id', 'in', rangeIds)
    .where('a.status', '=', 'active')
    .groupBy('a.range_id')
    .execute();
  return new Map(rows.map((row) => [row.range_id, row.reserved]));
}
