// The outbox of domain events: written in the transaction that caused them, delivered later (webhooks). An event
// with a dedupe key is recorded once, however often its cause repeats. Each event recorded waits to be fanned out
// as a row of outbound_work (platform/work, target `outbox`), written in the same statement and deleted when it is
// fanned out: the fan-out finds the events waiting in that small table, not behind a partial index of the events
// kept (whose dead entries it would walk until VACUUM). Each event carries the correlation id of the request or work
// that recorded it (observability/correlation.ts) into its webhook deliveries.
import { sql, type RawBuilder } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { EventPayloads, EventType } from './event-catalogue.js';
import type { Db } from '../db/database.js';
import type { UnexecutedStatement } from '../db/one-statement.js';
import { executePrepared } from '../db/prepared.js';
import type { Trx } from '../db/transact.js';
import type { InputColumn } from '../db/unnest.js';
import { newId } from '../ids.js';
import { correlationIdNow } from '../observability/correlation.js';

/** The queue of events waiting to be fanned out (outbound_work.target). */
export const outboxTarget = 'outbox';

/**
 * An event of a type the webhooks' catalogue lists (platform/events/event-catalogue.ts), with the payload its schema
 * describes. Neither an unlisted type (recorded, never delivered) nor another payload (delivered unlike its
 * published schema) compiles. Of several types, it is one of them with that type's payload.
 */
export type DomainEvent<T extends EventType = EventType> = {
  [K in T]: {
    companyId: string;
    environment: FiscalEnvironment;
    type: K;
    payload: EventPayloads[K];
    dedupeKey?: string;
    occurredAt: Date;
    /** The request's or work's that caused it; by default the one under way when its row is made. */
    correlationId?: string;
  };
}[T];

/** The payload an event of type `T` is recorded with. */
export type DomainEventPayload<T extends EventType> = EventPayloads[T];

/** Records `event` and queues its fan-out, in one statement (neither when its dedupe key was recorded before). */
export async function recordDomainEvent<T extends EventType>(executor: Db | Trx, event: DomainEvent<T>): Promise<void> {
  const row = domainEventRow(event);
  await executePrepared(
    executor,
    sql`
      with recorded as (
        insert into domain_events (id, company_id, environment, type, payload, dedupe_key, occurred_at, correlation_id)
        values (${row.id}, ${row.company_id}, ${row.environment}, ${row.type}, ${row.payload}::jsonb, ${row.dedupe_key}, ${row.occurred_at}, ${row.correlation_id})
        on conflict (dedupe_key) do nothing
        returning id, environment, occurred_at, correlation_id)
      insert into outbound_work (target, item_id, environment, due_at, correlation_id)
      select ${outboxTarget}, id, environment, occurred_at, correlation_id from recorded`,
  );
}

/**
 * The inserts that record `event` and queue its fan-out, unexecuted: for writes sent together as parts of one
 * statement (platform/db/one-statement.ts), which cannot read each other's rows, so only for an event without a
 * dedupe key (always recorded).
 */
export function domainEventInsertStatements<T extends EventType>(
  executor: Db | Trx,
  event: DomainEvent<T>,
): UnexecutedStatement[] {
  if (event.dedupeKey !== undefined)
    throw new Error('domainEventInsertStatements: an event with a dedupe key is recorded with recordDomainEvent');
  const row = domainEventRow(event);
  return [
    executor.insertInto('domain_events').values(row),
    executor.insertInto('outbound_work').values({
      target: outboxTarget,
      item_id: row.id,
      environment: row.environment,
      due_at: row.occurred_at,
      correlation_id: row.correlation_id,
    }),
  ];
}

/**
 * The row that records `event`: for a statement that inserts it only when its other parts changed something
 * (src/modules/documents/send-state.repo.ts), with the same ON CONFLICT (dedupe_key) DO NOTHING.
 */
export function domainEventRow<T extends EventType>(event: DomainEvent<T>) {
  return {
    id: newId('evt'),
    company_id: event.companyId,
    environment: event.environment,
    type: event.type,
    payload: JSON.stringify(event.payload),
    dedupe_key: event.dedupeKey ?? null,
    occurred_at: event.occurredAt,
    correlation_id: event.correlationId ?? correlationIdNow(),
  };
}

/**
 * A batch's outbox events, one per row of the batch (undefined: that row has none, its columns null), as the
 * `outbox_*` columns of its input (platform/db/unnest.ts).
 */
export function outboxColumns(events: readonly (DomainEvent | undefined)[]): InputColumn[] {
  const rows = events.map((event) => (event === undefined ? undefined : domainEventRow(event)));
  const column = (name: keyof ReturnType<typeof domainEventRow>, type = 'text'): InputColumn => ({
    name: `outbox_${name}`,
    type,
    values: rows.map((row) => row?.[name] ?? null),
  });
  // jsonb travels as text: pg writes a JS array parameter as a PostgreSQL array, not as JSON.
  return [
    column('id'),
    column('company_id'),
    column('environment'),
    column('type'),
    column('payload'),
    column('dedupe_key'),
    column('occurred_at', 'timestamptz'),
    column('correlation_id'),
  ];
}

/**
 * Two CTEs (`outbox`, `outbox_queued`) that record the outbox events of the rows of `input` (outboxColumns) whose id
 * the CTE `written` returned, and queue their fan-out: a batch statement records the events of what it changed, and
 * of nothing else. `written` names only rows that have an event.
 */
export function outboxInsertCtes(written: string): RawBuilder<unknown> {
  return sql`
    outbox as (
      insert into domain_events (id, company_id, environment, type, payload, dedupe_key, occurred_at, correlation_id)
      select i.outbox_id, i.outbox_company_id, i.outbox_environment, i.outbox_type, i.outbox_payload::jsonb, i.outbox_dedupe_key, i.outbox_occurred_at, i.outbox_correlation_id
      from input i join ${sql.raw(written)} w on w.id = i.id
      on conflict (dedupe_key) do nothing
      returning id, environment, occurred_at, correlation_id),
    outbox_queued as (
      insert into outbound_work (target, item_id, environment, due_at, correlation_id)
      select ${outboxTarget}, id, environment, occurred_at, correlation_id from outbox)`;
}
