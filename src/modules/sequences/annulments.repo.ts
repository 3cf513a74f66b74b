import { sql, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import { olderThan } from '../../platform/db/older-than.js';
import type { Db } from '../../platform/db/database.js';
import type { DgiiMessageRow } from '../../platform/db/schema.js';
import type { AnnulmentSpansTable, AnnulmentsTable, AnnulmentStatus, SequencesTables } from './tables.js';
import type { Trx } from '../../platform/db/transact.js';
import type { RangeRow } from './sequences.repo.js';
import { tenantRow } from '../../platform/db/tenant-row.js';

export type AnnulmentRow = Selectable<AnnulmentsTable>;
export type SpanRow = Selectable<AnnulmentSpansTable>;
type Executor = Db<SequencesTables> | Trx<SequencesTables>;

/** The ranges of a type, locked for update: the same lock numbers are taken under. */
export function lockRangesOf(
  trx: Trx<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  ecfType: string,
): Promise<RangeRow[]> {
  return trx
    .selectFrom('sequence_ranges')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('ecf_type', '=', ecfType)
    .orderBy('first_number')
    .forUpdate()
    .execute();
}

export function activeBlockOverlapping(
  trx: Trx<SequencesTables>,
  rangeId: string,
  first: number,
  last: number,
): Promise<{ id: string; first_number: number; last_number: number } | undefined> {
  return trx
    .selectFrom('sequence_allocations')
    .select(['id', 'first_number', 'last_number'])
    .where('range_id', '=', rangeId)
    .where('status', '=', 'active')
    .where('first_number', '<=', last)
    .where('last_number', '>=', first)
    .executeTakeFirst();
}

/** The burned numbers in [from, to], with the annulment each already belongs to. */
export function burnedIn(
  trx: Trx<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  from: string,
  to: string,
): Promise<{ encf: string; annulment_id: string | null }[]> {
  return trx
    .selectFrom('sequence_burned')
    .select(['encf', 'annulment_id'])
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('encf', '>=', from)
    .where('encf', '<=', to)
    .orderBy('encf')
    .execute();
}

export async function claimBurned(
  trx: Trx<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  from: string,
  to: string,
  annulmentId: string,
): Promise<void> {
  await trx
    .updateTable('sequence_burned')
    .set({ annulment_id: annulmentId })
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('encf', '>=', from)
    .where('encf', '<=', to)
    .where('annulment_id', 'is', null)
    .execute();
}

/** Withdraws a range's unissued tail from handing out: its next number moves past the end. */
export async function withdrawTail(trx: Trx<SequencesTables>, rangeId: string, from: number): Promise<boolean> {
  const result =
    await sql`update sequence_ranges set next_number = last_number + 1 where id = ${rangeId} and next_number = ${from}`.execute(
      trx,
    );
  return result.numAffectedRows === 1n;
}

/** Gives a rejected annulment's numbers back: burned ones await annulment again, a tail is handed out again. */
export async function release(trx: Trx<SequencesTables>, annulmentId: string): Promise<void> {
  await trx
    .updateTable('sequence_burned')
    .set({ annulment_id: null })
    .where('annulment_id', '=', annulmentId)
    .execute();
  const tails = await trx
    .selectFrom('annulment_spans')
    .select(['range_id', 'first_number', 'last_number'])
    .where('annulment_id', '=', annulmentId)
    .where('kind', '=', 'unissued')
    .execute();
  for (const tail of tails) {
    await trx
      .updateTable('sequence_ranges')
      .set({ next_number: tail.first_number })
      .where('id', '=', tail.range_id)
      .where(sql<boolean>`next_number = ${tail.last_number} + 1`)
      .execute();
  }
}

export async function insertAnnulment(
  trx: Trx<SequencesTables>,
  row: Omit<AnnulmentRow, 'attempts' | 'dgii_messages'>,
  spans: readonly SpanRow[],
): Promise<void> {
  await trx
    .insertInto('annulments')
    .values({ ...row, dgii_messages: '[]' })
    .execute();
  await trx
    .insertInto('annulment_spans')
    .values([...spans])
    .execute();
}

export function lockAnnulment(trx: Trx<SequencesTables>, id: string): Promise<AnnulmentRow | undefined> {
  return trx.selectFrom('annulments').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function annulmentsById(db: Db<SequencesTables>, ids: readonly string[]): Promise<AnnulmentRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('annulments')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

/** An attempt is under way: shown as `sending` with its number, until its outcome is recorded. */
export async function markSending(db: Db<SequencesTables>, id: string, attempt: number, at: Date): Promise<void> {
  await db
    .updateTable('annulments')
    .set({ status: 'sending', attempts: attempt, updated_at: at })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'sending'])
    .execute();
}

export function findAnnulment(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<AnnulmentRow | undefined> {
  return db
    .selectFrom('annulments')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
    .then((row) => tenantRow(row, companyId, environment));
}

export function spansOf(db: Executor, annulmentIds: readonly string[]): Promise<SpanRow[]> {
  if (annulmentIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('annulment_spans')
    .selectAll()
    .where('annulment_id', 'in', annulmentIds)
    .orderBy('ecf_type')
    .orderBy('first_number')
    .execute();
}

export async function updateAnnulment(
  trx: Trx<SequencesTables>,
  id: string,
  change: {
    status: AnnulmentStatus;
    attempts?: number;
    dgii_estado?: string | null;
    dgii_codigo?: string | null;
    dgii_messages?: DgiiMessageRow[];
    final_at?: Date | null;
    updated_at: Date;
  },
): Promise<void> {
  const { dgii_messages: messages, ...rest } = change;
  await trx
    .updateTable('annulments')
    .set({ ...rest, ...(messages === undefined ? {} : { dgii_messages: JSON.stringify(messages) }) })
    .where('id', '=', id)
    .execute();
}

export function listAnnulments(
  db: Db<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  filter: { limit: number; after?: { createdAt: Date; id: string } | undefined },
): Promise<AnnulmentRow[]> {
  let query = db
    .selectFrom('annulments')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment);
  const after = filter.after;
  if (after !== undefined) query = query.where(olderThan(after));
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

/** Burned numbers no annulment holds, in e-NCF order. */
export function awaitingAnnulment(
  db: Db<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
): Promise<{ encf: string; range_id: string; cause: string }[]> {
  return db
    .selectFrom('sequence_burned')
    .select(['encf', 'range_id', 'cause'])
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('annulment_id', 'is', null)
    .orderBy('encf')
    .execute();
}

/** Per range: numbers annulled (accepted annulments) and unissued numbers withdrawn by annulments still open. */
export async function annulmentCounts(
  db: Executor,
  rangeIds: readonly string[],
): Promise<Map<string, { annulled: number; withdrawn: number }>> {
  if (rangeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('annulment_spans as s')
    .innerJoin('annulments as a', 'a.id', 's.annulment_id')
    .select([
      's.range_id',
      sql<number>`coalesce(sum(s.last_number - s.first_number + 1) filter (where a.status = 'accepted'), 0)::int8`.as(
        'annulled',
      ),
      sql<number>`coalesce(sum(s.last_number - s.first_number + 1) filter (where a.status in ('pending', 'sending', 'failed') and s.kind = 'unissued'), 0)::int8`.as(
        'withdrawn',
      ),
    ])
    .where('s.range_id', 'in', rangeIds)
    .groupBy('s.range_id')
    .execute();
  return new Map(rows.map((row) => [row.range_id, { annulled: row.annulled, withdrawn: row.withdrawn }]));
}
