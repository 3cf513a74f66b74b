// Offline blocks: a contiguous run of e-NCF reserved for one device (a point of sale that must issue while offline).
// A block is taken from the ranges exactly as one number is (first usable range of the type, under its row lock, in
// order): the range's next number moves past the block, so nobody else ever gets its numbers. A block comes from a
// single range; when the range in use has fewer numbers left the request is refused, saying how many are left, so
// that the device's numbers share one FechaVencimientoSecuencia and the client decides (take what is left, then the
// next block comes from the next range). When a block is cancelled or lapses, the numbers its device did not report
// become burned (awaiting annulment), so the sequence keeps no gap that is not accounted for.
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { pageLimits, pageOf, startOf } from '../../platform/paging.js';
import { fail, ok, type Result } from '../../platform/result.js';
import { newId } from '../../platform/ids.js';
import * as repo from './allocations.repo.js';
import type { RangeRow } from './sequences.repo.js';
import { encfOf } from './numbers.js';
import type { AllocationView, ListAllocationsQuery, ReserveAllocation } from './allocations.schema.js';
import type { SequencesTables } from './tables.js';

export interface AllocationsService {
  reserve(companyId: string, input: ReserveAllocation): Promise<Result<AllocationView>>;
  list(
    companyId: string,
    query: ListAllocationsQuery,
  ): Promise<Result<{ items: AllocationView[]; nextCursor: string | null }>>;
  get(companyId: string, id: string): Promise<Result<AllocationView>>;
  /** Ends an active block: its unused numbers are burned. A block that has already ended is refused (409). */
  cancel(companyId: string, id: string): Promise<Result<AllocationView>>;
  /**
   * Marks `encf` used by the device's document, inside the caller's transaction, when it falls in one of the
   * company's blocks: ok(blockId), or ok(undefined) when no block holds it; refused when its block has ended (its
   * number is burned). The block becomes exhausted when its last number is reported.
   */
  recordUse(
    trx: Trx<SequencesTables>,
    companyId: string,
    encf: string,
    documentId: string | null,
  ): Promise<Result<string | undefined>>;
  /** Ends every company's blocks past their expiry (the scheduled sweep); the number of companies swept. */
  expireAllDue(): Promise<number>;
}

function view(row: repo.AllocationWithCounts): AllocationView {
  const count = row.last_number - row.first_number + 1;
  const ended = row.status === 'cancelled' || row.status === 'expired';
  return {
    id: row.id,
    status: row.status,
    ecfType: row.ecf_type,
    deviceId: row.device_id,
    rangeId: row.range_id,
    from: encfOf(row.ecf_type, row.first_number),
    to: encfOf(row.ecf_type, row.last_number),
    count,
    used: row.used,
    remaining: row.status === 'active' ? count - row.used : 0,
    // Ending a block burns exactly the numbers not reported by then, and nothing is reported after.
    burned: ended ? count - row.used : 0,
    expiresAt: row.expires_at === null ? null : row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    endedAt: row.ended_at === null ? null : row.ended_at.toISOString(),
  };
}

const notFound = (id: string) => fail('allocation_not_found', `No allocation block ${id}.`);

/** What an allocation needs from the numbering: the same range choice and lock, and the same after-effects. */
export interface Numbering {
  /** The first usable range of the type, locked for update; or why there is none (no_range, range_expired, range_exhausted). */
  lockFirstUsable(trx: Trx<SequencesTables>, companyId: string, ecfType: string): Promise<Result<RangeRow>>;
  /** After numbers were taken from `range`, which has `rangeRemaining` left: the low-stock and expiring-soon events. */
  noteTaken(
    trx: Trx<SequencesTables>,
    companyId: string,
    ecfType: string,
    range: RangeRow,
    rangeRemaining: number,
  ): Promise<void>;
}

export function createAllocationsService(deps: {
  db: Db<SequencesTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  numbering: Numbering;
}): AllocationsService {
  const { db, clock, environment, numbering } = deps;

  const expiryCause = (row: repo.AllocationRow) =>
    `allocation ${row.id} expired (expiresAt ${row.expires_at?.toISOString() ?? ''})`;

  /** Ends a block (its unused numbers burned) and records the event webhooks deliver. */
  async function end(
    trx: Trx<SequencesTables>,
    row: repo.AllocationRow,
    status: 'expired' | 'cancelled',
    cause: string,
    now: Date,
  ): Promise<void> {
    await repo.endAllocation(trx, row, status, cause, now);
    await recordDomainEvent(trx, {
      companyId: row.company_id,
      environment,
      type: `allocation.${status}`,
      payload: { allocationId: row.id, ecfType: row.ecf_type, deviceId: row.device_id },
      occurredAt: now,
    });
  }

  /**
   * Blocks lapse lazily: whoever reads the company's blocks first after a block's expiry ends it (burning its unused
   * numbers), under the block's row lock, so each is ended once. Checked without a transaction first, as nearly
   * every read finds nothing due.
   */
  async function expireDue(companyId: string): Promise<void> {
    const now = clock.now();
    const due = await db
      .selectFrom('sequence_allocations')
      .select('id')
      .where('company_id', '=', companyId)
      .where('environment', '=', environment)
      .where('status', '=', 'active')
      .where('expires_at', '<=', now)
      .limit(1)
      .executeTakeFirst();
    if (due === undefined) return;
    await transact(db, async (trx) => {
      for (const row of await repo.lockDueForExpiry(trx, companyId, environment, now))
        await end(trx, row, 'expired', expiryCause(row), now);
      return ok(undefined);
    });
  }

  return {
    async reserve(companyId, input) {
      const now = clock.now();
      let expiresAt: Date | null = null;
      if (input.expiresAt !== undefined) {
        const parsed = Date.parse(input.expiresAt);
        if (Number.isNaN(parsed))
          return fail('validation_failed', 'The block is not valid.', [
            {
              pointer: '/expiresAt',
              in: 'body',
              code: 'invalid_date',
              detail: `${input.expiresAt} is not an ISO-8601 date-time.`,
            },
          ]);
        if (parsed <= now.getTime())
          return fail('validation_failed', 'The block is not valid.', [
            {
              pointer: '/expiresAt',
              in: 'body',
              code: 'in_the_past',
              detail: `${input.expiresAt} has already passed.`,
            },
          ]);
        expiresAt = new Date(parsed);
      }
      const reserved = await transact(db, async (trx) => {
        const locked = await numbering.lockFirstUsable(trx, companyId, input.ecfType);
        if (!locked.ok) return locked;
        const range = locked.value;
        const left = range.last_number - range.next_number + 1;
        if (input.count > left) {
          return fail(
            'allocation_exceeds_range',
            `The range in use of e-CF ${input.ecfType} (${encfOf(range.ecf_type, range.first_number)}–${encfOf(range.ecf_type, range.last_number)}) has ${left} numbers left; a block does not span two ranges. Ask for ${left} or fewer: once this range is used up, blocks come from the next one.`,
            [
              {
                pointer: '/count',
                in: 'body',
                code: 'exceeds_range',
                detail: `At most ${left} numbers can be reserved now.`,
              },
            ],
          );
        }
        const first = range.next_number;
        await repo.advanceRangeBy(trx, range.id, first, input.count);
        const row = await repo.insertAllocation(trx, {
          id: newId('alc'),
          company_id: companyId,
          environment,
          ecf_type: input.ecfType,
          range_id: range.id,
          device_id: input.deviceId,
          first_number: first,
          last_number: first + input.count - 1,
          status: 'active',
          expires_at: expiresAt,
          created_at: now,
          ended_at: null,
        });
        await numbering.noteTaken(trx, companyId, input.ecfType, range, left - input.count);
        await recordDomainEvent(trx, {
          companyId,
          environment,
          type: 'allocation.reserved',
          payload: {
            allocationId: row.id,
            ecfType: input.ecfType,
            deviceId: input.deviceId,
            from: encfOf(input.ecfType, first),
            to: encfOf(input.ecfType, first + input.count - 1),
          },
          occurredAt: now,
        });
        return ok(row);
      });
      if (!reserved.ok) return reserved;
      return ok(view({ ...reserved.value, used: 0 }));
    },

    async list(companyId, query) {
      const after = startOf(query.cursor);
      if (!after.ok) return after;
      await expireDue(companyId);
      const limit = query.limit ?? pageLimits.default;
      const rows = await repo.listAllocations(db, companyId, environment, {
        status: query.status,
        deviceId: query.deviceId,
        after: after.value,
        limit: limit + 1,
      });
      const page = pageOf(rows, limit, (row) => row.created_at);
      return ok({ items: page.rows.map(view), nextCursor: page.nextCursor });
    },

    async get(companyId, id) {
      await expireDue(companyId);
      const row = await repo.findAllocation(db, companyId, environment, id);
      return row === undefined ? notFound(id) : ok(view(row));
    },

    async cancel(companyId, id) {
      await expireDue(companyId);
      const ended = await transact(db, async (trx) => {
        const row = await repo.lockAllocation(trx, companyId, environment, id);
        if (row === undefined) return notFound(id);
        const now = clock.now();
        // It may have lapsed since expireDue looked: then it ends as expired, and the cancel is refused.
        if (row.status === 'active' && row.expires_at !== null && row.expires_at <= now) {
          await end(trx, row, 'expired', expiryCause(row), now);
          return ok<repo.AllocationRow['status']>('expired');
        }
        if (row.status !== 'active') return ok(row.status);
        await end(trx, row, 'cancelled', `allocation ${row.id} cancelled`, now);
        return ok<repo.AllocationRow['status']>('active');
      });
      if (!ended.ok) return ended;
      if (ended.value !== 'active')
        return fail(
          'allocation_not_active',
          `The block ${id} has already ended (${ended.value}); nothing is left to cancel.`,
        );
      const row = await repo.findAllocation(db, companyId, environment, id);
      return row === undefined ? notFound(id) : ok(view(row));
    },

    async recordUse(trx, companyId, encf, documentId) {
      const ecfType = encf.slice(1, 3);
      const sequence = Number(encf.slice(3));
      const row = await repo.lockAllocationHolding(trx, companyId, environment, ecfType, sequence);
      if (row === undefined) return ok(undefined);
      if (row.status === 'cancelled' || row.status === 'expired') {
        return fail(
          'allocation_not_active',
          `${encf} belongs to the block ${row.id}, which has ${row.status === 'cancelled' ? 'been cancelled' : 'expired'}: its unused numbers were burned.`,
        );
      }
      await repo.insertUse(trx, { allocation_id: row.id, encf, document_id: documentId, used_at: clock.now() });
      await repo.markExhaustedWhenFull(trx, row, clock.now());
      return ok(row.id);
    },

    async expireAllDue() {
      const companies = await db
        .selectFrom('sequence_allocations')
        .select('company_id')
        .distinct()
        .where('environment', '=', environment)
        .where('status', '=', 'active')
        .where('expires_at', '<=', clock.now())
        .execute();
      for (const { company_id: companyId } of companies) await expireDue(companyId);
      return companies.length;
    },
  };
}
