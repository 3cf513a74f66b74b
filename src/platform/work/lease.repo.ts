// The engine's lease on its own, for work that is one thing held by one worker at a time rather than items claimed
// from a queue. Its one user is the archive verifier (one across processes), which holds the lease for a whole pass
// at its own pace rather than per attempt; everything else that is held, a certification lane included, is an item
// of a target, leased by the engine's claim (work-engine.ts). It is the same row as an item's (outbound_work,
// migration 0015): (target, item_id) held under `lease_id` until `due_at`, taken back by anyone once that has
// passed, so a dead holder's lease runs out as a dead worker's items fall due again.
import { sql, type RawBuilder } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../db/database.js';
import { executePrepared } from '../db/prepared.js';
import type { Trx } from '../db/transact.js';
import { heldUnder } from './outbound-work.repo.js';

type Executor = Db | Trx;

/** What is held: a target's one item. */
export interface LeaseOf {
  target: string;
  itemId: string;
}

/**
 * Takes the lease of `of` for `holder` until `until`, or renews it when `holder` has it already; false while another
 * holder's lease runs (at `now`). One statement.
 */
export async function takeLease(
  executor: Executor,
  of: LeaseOf & { environment: FiscalEnvironment },
  holder: { leaseId: string; now: Date; until: Date },
): Promise<boolean> {
  const result = await executePrepared(
    executor,
    sql<{ item_id: string }>`
      insert into outbound_work as w (target, item_id, environment, due_at, lease_id)
      values (${of.target}, ${of.itemId}, ${of.environment}, ${holder.until}, ${holder.leaseId})
      on conflict (target, item_id) do update set due_at = excluded.due_at, lease_id = excluded.lease_id
      where w.lease_id is null or w.lease_id = excluded.lease_id or w.due_at <= ${holder.now}
      returning w.item_id`,
  );
  return result.rows.length === 1;
}

/** Gives the lease up, when `leaseId` still holds it: another holder may take it at once. */
export async function releaseLease(executor: Executor, of: LeaseOf, leaseId: string): Promise<void> {
  await executePrepared(
    executor,
    sql`delete from outbound_work where target = ${of.target} and item_id = ${of.itemId} and lease_id = ${leaseId}`,
  );
}

/**
 * A condition that holds while `leaseId` holds the lease of `of` at `now`: for a holder's writes that must count
 * only while its lease runs (a holder that lost it changes nothing). The engine's own condition (an item's lease
 * is the same row).
 */
export const leaseHeld: (of: LeaseOf, lease: { leaseId: string; now: Date }) => RawBuilder<boolean> = heldUnder;
