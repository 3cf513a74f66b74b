// The statements of outbound work (migration 0015): a row per item waiting, found by (target, environment, due_at),
// held by a lease, deleted when it settles, with the correlation id of the request that queued it (migration 0030).
// Every statement's text is fixed, so each is prepared (db/prepared.ts).
import { sql, type RawBuilder } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../db/database.js';
import { executePrepared } from '../db/prepared.js';
import type { Trx } from '../db/transact.js';
import { correlationIdNow } from '../observability/correlation.js';

type Executor = Db | Trx;

/** An item a claim took: its id, the attempts started on it (this one included) and its correlation id. */
export interface ClaimedRow {
  item_id: string;
  attempts: number;
  correlation_id: string;
}

/** Which items a claim takes: up to `limit` of those due, or the one item `itemId` (asked for now). */
export type ClaimWhich = { limit: number } | { itemId: string };

/** A claim's terms: the target's items of one environment, taken at `now` under `leaseId` until `leaseUntil`. */
export interface ClaimTerms {
  target: string;
  environment: FiscalEnvironment;
  now: Date;
  leaseId: string;
  leaseUntil: Date;
  which: ClaimWhich;
}

/**
 * The queue rows a claim takes, locked (FOR UPDATE, SKIP LOCKED among workers claiming side by side): up to
 * `limit` due now, oldest first; or the one named, when no running lease holds it (due or not: asked for now).
 */
export function claimableRows(terms: Pick<ClaimTerms, 'target' | 'environment' | 'now' | 'which'>) {
  if ('itemId' in terms.which) {
    return sql`
      select item_id from outbound_work
      where target = ${terms.target} and item_id = ${terms.which.itemId} and (lease_id is null or due_at <= ${terms.now})
      for update skip locked`;
  }
  return sql`
    select item_id from outbound_work
    where target = ${terms.target} and environment = ${terms.environment} and due_at <= ${terms.now}
    order by due_at
    limit ${terms.which.limit}
    for update skip locked`;
}

/**
 * The claim's update of the rows `due` (a CTE of claimableRows): each is held under the lease (its due time moves to
 * where the lease runs out, so a dead worker's items fall due again) and its attempt is counted. Returns item_id,
 * attempts and correlation_id; a target claiming its items in the same statement builds on it (documents'
 * send-claims.repo.ts).
 */
export function claimUpdate(terms: ClaimTerms) {
  return sql`
    update outbound_work w set lease_id = ${terms.leaseId}, due_at = ${terms.leaseUntil}, attempts = w.attempts + 1
    from due where w.target = ${terms.target} and w.item_id = due.item_id
    returning w.item_id, w.attempts, w.correlation_id`;
}

/** Takes the items of `terms` in ONE statement (claimableRows, then claimUpdate). */
export async function claimDue(db: Db, terms: ClaimTerms): Promise<ClaimedRow[]> {
  const result = await executePrepared(
    db,
    sql<ClaimedRow>`with due as (${claimableRows(terms)}) ${claimUpdate(terms)}`,
  );
  return result.rows;
}

/** An item to put in the queue; `correlationId`: the request's that queues it, by default the one under way. */
export interface QueuedItem {
  target: string;
  itemId: string;
  environment: FiscalEnvironment;
  dueAt: Date;
  correlationId?: string;
}

/**
 * Puts items in the queue (or back in it): due at `dueAt`, held by no one. An item already waiting takes the new due
 * time and correlation id and loses any lease (its worker's outcome will not be recorded); `resetAttempts` starts
 * its count again (a person asked for it again).
 */
export async function enqueue(
  executor: Executor,
  items: readonly QueuedItem[],
  options: { resetAttempts: boolean } = { resetAttempts: true },
): Promise<void> {
  if (items.length === 0) return;
  const under = correlationIdNow();
  await executePrepared(
    executor,
    sql`
      insert into outbound_work (target, item_id, environment, due_at, correlation_id)
      select * from unnest(${items.map((item) => item.target)}::text[], ${items.map((item) => item.itemId)}::text[], ${items.map((item) => item.environment)}::text[], ${items.map((item) => item.dueAt)}::timestamptz[], ${items.map((item) => item.correlationId ?? under)}::text[])
      on conflict (target, item_id) do update set due_at = excluded.due_at, lease_id = null, correlation_id = excluded.correlation_id,
        attempts = case when ${options.resetAttempts}::bool then 0 else outbound_work.attempts end`,
  );
}

/**
 * Makes items due now: one not queued is queued (from 0 attempts), one waiting (its backoff, a later due time) is due
 * at `now` with its attempts as they were. One held by a running lease is left to its worker, whose outcome settles
 * it; the conflicting row stays locked until the caller's transaction ends, so a settlement waits for it. An item
 * made due takes the correlation id under way (the request that asked for it now).
 */
export async function hasten(
  executor: Executor,
  items: readonly { target: string; itemId: string; environment: FiscalEnvironment }[],
  now: Date,
): Promise<void> {
  if (items.length === 0) return;
  await executePrepared(
    executor,
    sql`
      insert into outbound_work as w (target, item_id, environment, due_at, correlation_id)
      select t, i, e, ${now}::timestamptz, ${correlationIdNow()}::text from unnest(${items.map((item) => item.target)}::text[], ${items.map((item) => item.itemId)}::text[], ${items.map((item) => item.environment)}::text[]) as u(t, i, e)
      on conflict (target, item_id) do update set due_at = excluded.due_at, lease_id = null, correlation_id = excluded.correlation_id
      where (w.lease_id is null or w.due_at <= ${now}) and w.due_at > excluded.due_at`,
  );
}

/**
 * Settles an attempt while `leaseId` still holds the item: `next` puts it back due then, with `attempts` counted,
 * undefined deletes it (done, or no attempt left). The row stays locked until the transaction ends, so the outcome
 * is recorded under the lease. Whether the lease was still this worker's.
 */
export async function settle(
  trx: Trx,
  item: { target: string; itemId: string; leaseId: string },
  next: { dueAt: Date; attempts: number } | undefined,
): Promise<boolean> {
  const result =
    next === undefined
      ? await executePrepared(
          trx,
          sql`delete from outbound_work where target = ${item.target} and item_id = ${item.itemId} and lease_id = ${item.leaseId} returning item_id`,
        )
      : await executePrepared(
          trx,
          sql`
            update outbound_work set due_at = ${next.dueAt}, lease_id = null, attempts = ${next.attempts}::int
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

/**
 * The part of a target's one-statement recording that settles the queue rows of `rows` under their leases, for a
 * target that records its own changes and settles in the same statement (documents' changeDocumentsIf,
 * send-state.repo.ts). `rows` is the FROM of the statement (`input i join changed c on c.id = i.id`); `target`,
 * `itemId` and `leaseId` name each row's, as expressions of it. Deleted (done), or, with `next`, due again then,
 * unheld, its attempts counted from 0 (an answer that moves the item on). A row whose lease passed to another worker
 * is left as it is.
 */
export function settleHeld(rows: {
  from: RawBuilder<unknown>;
  target: RawBuilder<unknown>;
  itemId: RawBuilder<unknown>;
  leaseId: RawBuilder<unknown>;
  next?: RawBuilder<unknown>;
}) {
  const held = sql`w.target = ${rows.target} and w.item_id = ${rows.itemId} and w.lease_id = ${rows.leaseId}`;
  return rows.next === undefined
    ? sql`delete from outbound_work w using ${rows.from} where ${held}`
    : sql`update outbound_work w set due_at = ${rows.next}, lease_id = null, attempts = 0 from ${rows.from} where ${held}`;
}

/**
 * Puts the items a query selects in the queue (its columns: target, item_id, environment, due_at, correlation_id),
 * from 0 attempts; one already waiting takes the new due time and correlation id and loses any lease (its worker's
 * outcome will not be recorded). For work queued in a target's own statement (documents' changeDocumentsIf); enqueue
 * does it for a list.
 */
export function enqueueSelected(selected: RawBuilder<unknown>) {
  return sql`
    insert into outbound_work (target, item_id, environment, due_at, correlation_id) ${selected}
    on conflict (target, item_id) do update set due_at = excluded.due_at, lease_id = null, attempts = 0,
      correlation_id = excluded.correlation_id`;
}

/**
 * The update that makes the rows `due` (a CTE of claimableRows) wait until `until` instead of taking them: no lease
 * taken, no attempt counted (DGII's maintenance window, documents' holdDueSends). Returns item_id and correlation_id.
 */
export function postponeUpdate(target: string, until: Date) {
  return sql`update outbound_work w set due_at = ${until} from due where w.target = ${target} and w.item_id = due.item_id returning w.item_id, w.correlation_id`;
}

/** Whether queue row `w` is held by no running lease at `now`: its worker's outcome is not awaited. */
export function notHeld(now: Date) {
  return sql<boolean>`(w.lease_id is null or w.due_at <= ${now})`;
}

/**
 * A condition that holds while `leaseId` holds item `of` at `now` (its lease not run out): for a holder's writes
 * that must count only while its lease runs, in a statement or transaction of its own (a holder that lost the item
 * changes nothing).
 */
export function heldUnder(of: { target: string; itemId: string }, lease: { leaseId: string; now: Date }) {
  return sql<boolean>`exists (select 1 from outbound_work
    where target = ${of.target} and item_id = ${of.itemId} and lease_id = ${lease.leaseId} and due_at > ${lease.now})`;
}
