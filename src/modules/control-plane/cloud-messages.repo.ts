import type { Db } from '../../platform/db/database.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import { fail, ok, type Result } from '../../platform/result.js';
import type { ControlPlaneTables } from './tables.js';

/**
 * Records a signed message id inside the caller's transaction. A second message with the same id is
 * refused; because the record commits or rolls back with the work, a message whose work failed can be retried.
 */
export async function recordMessageOnce(
  trx: AnyTrx,
  id: string,
  label: string,
  companyId: string | null,
): Promise<Result<void>> {
  const inserted = await tablesOf<ControlPlaneTables>(trx)
    .insertInto('cloud_messages')
    .values({ id, label, company_id: companyId })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted === undefined ? fail('event_replayed', `Message ${id} has already been processed.`) : ok(undefined);
}

/** Replays carry their original timestamp and are refused as stale after five minutes; older ids are kept only for audit. */
export async function purgeMessagesBefore(db: Db<ControlPlaneTables>, before: Date): Promise<number> {
  const result = await db.deleteFrom('cloud_messages').where('received_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
