// The statements of outbound work (migration 0015): a row per item waiting, found by (target, environment, due_at),
// held by a lease, deleted when it settles. Every statement's text is fixed, so each is prepared (db/prepared.ts).
import { sql } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../db/database.js';
import { executePrepared } from '../db/prepared.js';
import type { Trx } from '../db/transact.js';

type Executor = Db | Trx;

/** An item a claim took: its id and the attempts started on it, this one included. */
export interface ClaimedRow {
  item_id: string;
  attempts: number;
}

/**
 * Takes up to `limit` items of `target` due at `now`, in ONE statement: each is held under `leaseId` until
 * `leaseUntil` (its due time moves there, so a dead worker's items fall due again when the lease runs out) and its
 * attempt is counted. Workers claiming side by side skip each other's rows (SKIP LOCKED).
 */
export async function claimDue(db: Db, claim: { target: string; environment: FiscalEnvironment; now: Date; leaseId: string; leaseUntil: Date; limit: number }): Promise<ClaimedRow[]> {
  const result = await executePrepared(
    db,
    sql<ClaimedRow>`
      with due as (
        select item_id from outbound_work
        where target = ${claim.target} and environment = ${claim.environment} and due_at <= ${claim.now}
        order by due_at
        limit ${claim.limit}
        for update skip locked)
      update outbound_work w set lease_id = ${claim.leaseId}, due_at = ${claim.leaseUntil}, attempts = w.attempts + 1
      from due where w.target = ${claim.target} and w.item_id = due.item_id
      returning w.item_id, w.attempts`,
  );
  return result.rows;
}

/**
 * Puts items in the queue (or back in it): due at `dueAt`, held by no one. An item already waiting takes the new due
 * time and loses any lease (its worker's outcome will not be recorded); `resetAttempts` starts its count again (a
 * person asked for it again).
 */
export async function enqueue(executor: Executor, items: readonly { target: string; itemId: string; environment: FiscalEnvironment; dueAt: Date }[], options: { resetAttempts: boolean } = { resetAttempts: true }): Promise<void> {
  if (items.length === 0) return;
  await executePrepared(
    executor,
    sql`
      insert into outbound_work (target, item_id, environment, due_at)
      select * from unnest(${items.map((item) => item.target)}::text[], ${items.map((item) => item.itemId)}::text[], ${items.map((item) => item.environment)}::text[], ${items.map((item) => item.dueAt)}::timestamptz[])
      on conflict (target, item_id) do update set due_at = excluded.due_at, lease_id = null,
        attempts = case when ${options.resetAttempts}::bool then 0 else outbound_work.attempts end`,
  );
}

/**
 * Settles an attempt while `leaseId` still holds the item: `next` puts it back due then (its attempts changed by
 * `attemptsDelta`), undefined deletes it (done, or no attempt left). The row stays locked until the transaction ends,
 * so the outcome is recorded under the lease. Whether the lease was still this worker's.
 */
export async function settle(trx: Trx, item: { target: string; itemId: string; leaseId: string }, next: { dueAt: Date; attemptsDelta: number } | undefined): Promise<boolean> {
  const result =
    next === undefined
      ? await executePrepared(trx, sql`delete from outbound_work where target = ${item.target} and item_id = ${item.itemId} and lease_id = ${item.leaseId} returning item_id`)
      : await executePrepared(
          trx,
          sql`
            update outbound_work set due_at = ${next.dueAt}, lease_id = null, attempts = attempts + ${next.attemptsDelta}::int
            where target = ${item.target} and item_id = ${item.itemId} and lease_id = ${item.leaseId} returning item_id`,
        );
  return result.rows.length === 1;
}

/**
 * The queue rows of `input` (a CTE of `id` and `lease_id` columns) still held under those leases, deleted: the part
 * of a target's one-statement recording that settles its items (a CTE returning the ids settled, as `id`).
 */
export function settledUnderLease(target: string) {
  return sql`delete from outbound_work w using input i where w.target = ${target} and w.item_id = i.id and w.lease_id = i.lease_id returning w.item_id as id`;
}
