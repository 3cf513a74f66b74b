// The outbox of domain events: written in the transaction that caused them, delivered later (webhooks). An event
// with a dedupe key is recorded once, however often its cause repeats.
import { sql, type RawBuilder } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../db/database.js';
import type { Trx } from '../db/transact.js';
import type { InputColumn } from '../db/unnest.js';
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

/** A batch's outbox events, one per row of the batch, as the `outbox_*` columns of its input (platform/db/unnest.ts). */
export function outboxColumns(events: readonly DomainEvent[]): InputColumn[] {
  const rows = events.map(domainEventRow);
  const column = (name: keyof (typeof rows)[number], type = 'text'): InputColumn => ({ name: `outbox_${name}`, type, values: rows.map((row) => row[name]) });
  // jsonb travels as text: pg writes a JS array parameter as a PostgreSQL array, not as JSON.
  return [column('id'), column('company_id'), column('environment'), column('type'), column('payload'), column('dedupe_key'), column('occurred_at', 'timestamptz')];
}

/**
 * The insert of the outbox events of the rows of `input` (outboxColumns) whose id the CTE `written` returned: a
 * batch statement records the events of what it changed, and of nothing else.
 */
export function outboxInsertFromInput(written: string): RawBuilder<unknown> {
  return sql`
    insert into domain_events (id, company_id, environment, type, payload, dedupe_key, occurred_at)
    select i.outbox_id, i.outbox_company_id, i.outbox_environment, i.outbox_type, i.outbox_payload::jsonb, i.outbox_dedupe_key, i.outbox_occurred_at
    from input i join ${sql.raw(written)} w on w.id = i.id
    on conflict (dedupe_key) do nothing`;
}
