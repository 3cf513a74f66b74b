// The outbox of domain events: written in the transaction that caused them, delivered later (webhooks). An event
// with a dedupe key is recorded once, however often its cause repeats.
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../db/database.js';
import type { Trx } from '../db/transact.js';
import { newId } from '../ids.js';

export interface DomainEvent {
  companyId: string;
  environment: FiscalEnvironment;
  type: string;
  payload: Record<string, unknown>;
  dedupeKey?: string;
  occurredAt: Date;
}

export async function recordDomainEvent(trx: Trx, event: DomainEvent): Promise<void> {
  await domainEventInsert(trx, event).execute();
}

/** The insert that records `event`, unexecuted: for writes sent together (platform/db/one-statement.ts). */
export function domainEventInsert(executor: Db | Trx, event: DomainEvent) {
  return executor
    .insertInto('domain_events')
    .values(domainEventRow(event))
    .onConflict((conflict) => conflict.column('dedupe_key').doNothing());
}

/**
 * The row that records `event`: for a statement that inserts it only when its other parts changed something
 * (src/modules/sending/sending.repo.ts), with the same ON CONFLICT (dedupe_key) DO NOTHING.
 */
export function domainEventRow(event: DomainEvent) {
  return {
    id: newId('evt'),
    company_id: event.companyId,
    environment: event.environment,
    type: event.type,
    payload: JSON.stringify(event.payload),
    dedupe_key: event.dedupeKey ?? null,
    occurred_at: event.occurredAt,
  };
}
