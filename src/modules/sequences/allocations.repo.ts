import { sql, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import { olderThan } from '../../platform/db/older-than.js';
import type { Db } from '../../platform/db/database.js';
import type {
  AllocationStatus,
  SequenceAllocationUsesTable,
  SequenceAllocationsTable,
  SequencesTables,
} from './tables.js';
import type { Trx } from '../../platform/db/transact.js';
import { tenantRow } from '../../platform/db/tenant-row.js';

export type AllocationRow = Selectable<SequenceAllocationsTable>;
/** A block with how many of its numbers were reported used. */
export type AllocationWithCounts = AllocationRow & { used: number };

type Executor = Db<SequencesTables> | Trx<SequencesTables>;

export async function insertAllocation(trx: Trx<SequencesTables>, row: AllocationRow): Promise<AllocationRow> {
  return trx.insertInto('sequence_allocations').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Moves a locked range's next number past a block that starts at `from`. */
export async function advanceRangeBy(
  trx: Trx<SequencesTables>,
  rangeId: string,
  from: number,
  count: number,
): Promise<void> {
  await trx
    .updateTable('sequence_ranges')
    .set({ next_number: from + count })
    .where('id', '=', rangeId)
    .where('next_number', '=', from)
    .execute();
}

function withCounts(db: Executor) {
  return db
    .selectFrom('sequence_allocations as a')
    .selectAll('a')
    .select(
      sql<number>`(select count(*) from sequence_allocation_uses u where u.allocation_id = a.id)::int8`.as('used'),
    );
}

export function findAllocation(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<AllocationWithCounts | undefined> {
  return withCounts(db)
    .where('a.id', '=', id)
    .where('a.company_id', '=', companyId)
    .where('a.environment', '=', environment)
    .executeTakeFirst();
}

export function listAllocations(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  filter: {
    status?: string | undefined;
    deviceId?: string | undefined;
    after?: { createdAt: Date; id: string } | undefined;
    limit: number;
  },
): Promise<AllocationWithCounts[]> {
  let query = withCounts(db).where('a.company_id', '=', companyId).where('a.environment', '=', environment);
  if (filter.status !== undefined) query = query.where('a.status', '=', filter.status as AllocationStatus);
  if (filter.deviceId !== undefined) query = query.where('a.device_id', '=', filter.deviceId);
  const after = filter.after;
  if (after !== undefined) {
    query = query.where(olderThan(after, 'a.created_at', 'a.id'));
  }
  return query.orderBy('a.created_at', 'desc').orderBy('a.id', 'desc').limit(filter.limit).execute();
}

/** Active blocks of the company whose expiry has passed, locked so that only one reader ends each. */
export function lockDueForExpiry(
  trx: Trx<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  now: Date,
): Promise<AllocationRow[]> {
  return trx
    .selectFrom('sequence_allocations')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('status', '=', 'active')
    .where('expires_at', '<=', now)
    .orderBy('id')
    .forUpdate()
    .execute();
}

export function lockAllocation(
  trx: Trx<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<AllocationRow | undefined> {
  return trx
    .selectFrom('sequence_allocations')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
    .then((row) => tenantRow(row, companyId, environment));
}

/**
 * Ends an active block: every number of it the device did not report used is burned (cause naming the block), and
 * the status set, in the caller's transaction. The status guard makes a second end a no-op.
 */
export async function endAllocation(
  trx: Trx<SequencesTables>,
  row: AllocationRow,
  status: 'cancelled' | 'expired',
  cause: string,
  at: Date,
): Promise<boolean> {
  const ended = await trx
    .updateTable('sequence_allocations')
    .set({ status, ended_at: at })
    .where('id', '=', row.id)
    .where('status', '=', 'active')
    .returning('id')
    .executeTakeFirst();
  if (ended === undefined) return false;
  await sql`
    insert into sequence_burned (company_id, environment, encf, range_id, cause, burned_at, annulment_id)
    select ${row.company_id}, ${row.environment}, e.encf, ${row.range_id}, ${cause}, ${at}, null
    from (select 'E' || ${row.ecf_type} || lpad(n::text, 10, '0') as encf from generate_series(${row.first_number}::int8, ${row.last_number}::int8) as n) e
    where not exists (select 1 from sequence_allocation_uses u where u.allocation_id = ${row.id} and u.encf = e.encf)`.execute(
    trx,
  );
  return true;
}

/** The company's block (any status) whose numbers include `sequence` of the type, locked for update. */
export function lockAllocationHolding(
  trx: Trx<SequencesTables>,
  companyId: string,
  environment: FiscalEnvironment,
  ecfType: string,
  sequence: number,
): Promise<AllocationRow | undefined> {
  return trx
    .selectFrom('sequence_allocations')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('ecf_type', '=', ecfType)
    .where('first_number', '<=', sequence)
    .where('last_number', '>=', sequence)
    .forUpdate()
    .executeTakeFirst();
}

export async function insertUse(
  trx: Trx<SequencesTables>,
  row: Selectable<SequenceAllocationUsesTable>,
): Promise<void> {
  await trx
    .insertInto('sequence_allocation_uses')
    .values(row)
    .onConflict((oc) => oc.columns(['allocation_id', 'encf']).doNothing())
    .execute();
}

/** An active block whose every number has been reported becomes exhausted. */
export async function markExhaustedWhenFull(trx: Trx<SequencesTables>, row: AllocationRow, at: Date): Promise<void> {
  await trx
    .updateTable('sequence_allocations')
    .set({ status: 'exhausted', ended_at: at })
    .where('id', '=', row.id)
    .where('status', '=', 'active')
    .where(
      sql<boolean>`(select count(*) from sequence_allocation_uses u where u.allocation_id = ${row.id}) >= ${row.last_number - row.first_number + 1}`,
    )
    .execute();
}
