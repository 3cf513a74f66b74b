import { sql, type Selectable, type Updateable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import { companyRncOf } from '../companies/index.js';
import { olderThan } from '../../platform/db/older-than.js';
import type { Db } from '../../platform/db/database.js';
import { executePrepared } from '../../platform/db/prepared.js';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookDeliveryStatus,
  WebhookEndpointsTable,
  WebhooksTables,
} from './tables.js';
import type { Trx } from '../../platform/db/transact.js';
import type { CursorPosition } from '../../platform/paging.js';
import { tenantRow } from '../../platform/db/tenant-row.js';
import { unnested } from '../../platform/db/unnest.js';
import { outboxTarget } from '../../platform/events/domain-events.js';
import { notHeld, settledUnderLease } from '../../platform/work/outbound-work.repo.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;
type Executor = Db<WebhooksTables> | Trx<WebhooksTables>;

export async function insertEndpoint(db: Executor, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export function findEndpoint(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
    .then((row) => tenantRow(row, companyId, environment));
}

export function listEndpoints(
  db: Db<WebhooksTables>,
  companyId: string,
  environment: FiscalEnvironment,
  filter: { limit: number; after: CursorPosition | undefined },
): Promise<EndpointRow[]> {
  let query = db
    .selectFrom('webhook_endpoints')
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

export async function updateEndpoint(
  db: Executor,
  id: string,
  changes: Updateable<WebhookEndpointsTable>,
): Promise<void> {
  await db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).execute();
}

/** The enabled endpoints of these companies in this environment (the fan-out's candidates). */
export function enabledEndpointsOf(
  trx: Trx<WebhooksTables>,
  companyIds: readonly string[],
  environment: FiscalEnvironment,
): Promise<Pick<EndpointRow, 'id' | 'company_id' | 'event_types'>[]> {
  if (companyIds.length === 0) return Promise.resolve([]);
  return trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'company_id', 'event_types'])
    .where('company_id', 'in', [...companyIds])
    .where('environment', '=', environment)
    .where('status', '=', 'enabled')
    .execute();
}

/**
 * An event waiting to be fanned out, with the correlation id it was queued with (its cause's); `rnc` null when it
 * cannot be fanned out (its company, or the event itself, gone).
 */
export type OutboxEvent = { correlation_id: string } & (
  | { id: string; company_id: string; type: string; payload: unknown; occurred_at: Date; rnc: string }
  | {
      id: string;
      company_id: string | null;
      type: string | null;
      payload: unknown;
      occurred_at: Date | null;
      rnc: null;
    }
);

/**
 * Events waiting to be fanned out (their outbound_work rows, platform/events/domain-events.ts), oldest first,
 * locked so that one worker takes each. `rnc` is null for an event that cannot be fanned out (its company or the
 * event itself gone): it is settled with the others, reaching no one, rather than taken again at every batch.
 */
export async function lockUndispatched(
  trx: Trx<WebhooksTables>,
  environment: FiscalEnvironment,
  limit: number,
): Promise<OutboxEvent[]> {
  const result = await executePrepared(
    trx,
    sql<OutboxEvent>`
      with taken as (
        select item_id, due_at, correlation_id from outbound_work
        where target = ${outboxTarget} and environment = ${environment}
        order by due_at, item_id
        limit ${limit}
        for update skip locked)
      select t.item_id as id, t.correlation_id, e.company_id, e.type, e.payload, e.occurred_at,
        ${companyRncOf(sql.ref<string | null>('e.company_id'))} as rnc
      from taken t left join domain_events e on e.id = t.item_id
      order by t.due_at, t.item_id`,
  );
  return result.rows;
}

/**
 * Marks events fanned out and takes them out of the queue: one prepared statement whatever their number (an IN list
 * would vary its text).
 */
export async function markDispatched(trx: Trx<WebhooksTables>, ids: readonly string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await executePrepared(
    trx,
    sql`
      with settled as (delete from outbound_work where target = ${outboxTarget} and item_id = any(${[...ids]}::text[]))
      update domain_events set dispatched_at = ${at} where id = any(${[...ids]}::text[])`,
  );
}

/** Inserts the deliveries not already made (an event reaches an endpoint once); the ids inserted. */
export async function insertDeliveries(
  trx: Executor,
  rows: readonly Omit<DeliveryRow, 'attempts'>[],
): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await trx
    .insertInto('webhook_deliveries')
    .values([...rows])
    .onConflict((conflict) => conflict.columns(['event_id', 'endpoint_id']).doNothing())
    .returning('id')
    .execute();
  return inserted.map((row) => row.id);
}

/** A delivery as an attempt needs it: its row's columns and what the attempt needs of its endpoint. */
export interface DeliveryItem {
  id: string;
  endpoint_id: string;
  event_type: string;
  body: string;
  /** Attempts recorded on the delivery so far (its history; re-sends included). */
  attempts: number;
  endpoint: Pick<
    EndpointRow,
    | 'id'
    | 'company_id'
    | 'url'
    | 'status'
    | 'disabled_reason'
    | 'secret_sealed'
    | 'previous_secret_sealed'
    | 'previous_secret_until'
  >;
}

/** The deliveries of these ids, each with its endpoint's columns, in one statement. */
export async function deliveriesWithEndpoints(db: Db<WebhooksTables>, ids: readonly string[]): Promise<DeliveryItem[]> {
  if (ids.length === 0) return [];
  const rows = await executePrepared(
    db,
    sql<
      Omit<DeliveryItem, 'endpoint'> & {
        company_id: string;
        url: string;
        endpoint_status: EndpointRow['status'];
        disabled_reason: string | null;
        secret_sealed: string;
        previous_secret_sealed: string | null;
        previous_secret_until: Date | null;
      }
    >`
    select d.id, d.endpoint_id, d.event_type, d.body, d.attempts, e.company_id, e.url, e.status as endpoint_status, e.disabled_reason,
      e.secret_sealed, e.previous_secret_sealed, e.previous_secret_until
    from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
    where d.id = any(${[...ids]}::text[])`,
  );
  return rows.rows.map((row) => ({
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_type: row.event_type,
    body: row.body,
    attempts: row.attempts,
    endpoint: {
      id: row.endpoint_id,
      company_id: row.company_id,
      url: row.url,
      status: row.endpoint_status,
      disabled_reason: row.disabled_reason,
      secret_sealed: row.secret_sealed,
      previous_secret_sealed: row.previous_secret_sealed,
      previous_secret_until: row.previous_secret_until,
    },
  }));
}

export interface Success {
  deliveryId: string;
  endpointId: string;
  attempt: Omit<AttemptRow, 'id' | 'delivery_id'>;
}

/** What the successes change, for the deliveries in `settled` (a CTE of their ids): one statement's parts. */
function successParts(now: Date) {
  return sql`
    attempts as (
      insert into webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, error, response_excerpt)
      select i.id, i.attempted_at, i.status_code, i.duration_ms, i.error, i.response_excerpt from input i join settled s on s.id = i.id),
    deliveries as (
      update webhook_deliveries d set status = 'succeeded', attempts = d.attempts + 1, next_attempt_at = null, last_error = null, updated_at = ${now}
      from settled s where d.id = s.id),
    endpoints as (
      update webhook_endpoints e set failing_since = null
      where e.id in (select i.endpoint_id from input i join settled s on s.id = i.id) and e.failing_since is not null)`;
}

function successInput(successes: readonly Success[], leaseIds: readonly (string | null)[]) {
  return unnested(
    [
      { name: 'id', type: 'text', values: successes.map((success) => success.deliveryId) },
      { name: 'lease_id', type: 'text', values: leaseIds },
      { name: 'endpoint_id', type: 'text', values: successes.map((success) => success.endpointId) },
      { name: 'attempted_at', type: 'timestamptz', values: successes.map((success) => success.attempt.attempted_at) },
      { name: 'status_code', type: 'int4', values: successes.map((success) => success.attempt.status_code) },
      { name: 'duration_ms', type: 'int4', values: successes.map((success) => success.attempt.duration_ms) },
      { name: 'error', type: 'text', values: successes.map((success) => success.attempt.error) },
      { name: 'response_excerpt', type: 'text', values: successes.map((success) => success.attempt.response_excerpt) },
    ],
    'i',
  );
}

/**
 * Successful attempts of deliveries whose queue row the caller already settled, in ONE statement: the attempts, the
 * deliveries succeeded, and their endpoints' runs of failures ended — that part touches (and locks) an endpoint row
 * only when a run is recorded, so successes to one endpoint do not queue on its row.
 */
export async function recordSuccesses(executor: Executor, successes: readonly Success[], now: Date): Promise<void> {
  if (successes.length === 0) return;
  await executePrepared(
    executor,
    sql`
    with input as (select * from ${successInput(
      successes,
      successes.map(() => null),
    )}),
    settled as (select id from input), ${successParts(now)}
    select 1`,
  );
}

/**
 * recordSuccesses for deliveries still held under their claim's lease, settling their queue rows in the same
 * statement (platform/work/outbound-work.repo.ts settledUnderLease): a delivery whose lease passed to another worker
 * (or that was re-sent meanwhile) is left as it is. Whether each was recorded, in order.
 */
export async function recordSuccessesUnderLease(
  db: Db<WebhooksTables>,
  target: string,
  successes: readonly (Success & { leaseId: string })[],
  now: Date,
): Promise<boolean[]> {
  if (successes.length === 0) return [];
  const result = await executePrepared(
    db,
    sql<{ id: string }>`
    with input as (select * from ${successInput(
      successes,
      successes.map((success) => success.leaseId),
    )}),
    settled as (${settledUnderLease(target)}), ${successParts(now)}
    select id from settled`,
  );
  const recorded = new Set(result.rows.map((row) => row.id));
  return successes.map((success) => recorded.has(success.deliveryId));
}

/** The endpoint, locked until the transaction ends (a failed attempt decides on its run of failures under it). */
export function lockEndpoint(trx: Trx<WebhooksTables>, id: string): Promise<EndpointRow | undefined> {
  return trx.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function updateDelivery(
  db: Executor,
  id: string,
  changes: Updateable<WebhookDeliveriesTable>,
): Promise<void> {
  await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
}

export async function insertAttempt(db: Executor, row: Omit<AttemptRow, 'id'>): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
}

/** A delivery of this company pending again (a re-send); the row as it is now, undefined when there is none. */
export function requeueDelivery(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
  now: Date,
): Promise<DeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: null, updated_at: now })
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .returningAll()
    .executeTakeFirst();
}

export function findDelivery(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
    .then((row) => tenantRow(row, companyId, environment));
}

export function listDeliveries(
  db: Db<WebhooksTables>,
  companyId: string,
  environment: FiscalEnvironment,
  filter: {
    limit: number;
    after: CursorPosition | undefined;
    endpointId?: string | undefined;
    status?: WebhookDeliveryStatus | undefined;
  },
): Promise<DeliveryRow[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment);
  if (filter.endpointId !== undefined) query = query.where('endpoint_id', '=', filter.endpointId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  const after = filter.after;
  if (after !== undefined) query = query.where(olderThan(after));
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

export function attemptsOf(db: Db<WebhooksTables>, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', [...deliveryIds])
    .orderBy('id')
    .execute();
}

/**
 * Ends the deliveries of a disabled endpoint waiting for an attempt, and takes them out of the queue, in one
 * statement. One under a running lease is left to its worker, which records its own attempt (and the next claim
 * finds the endpoint disabled); so is a queue row locked now, being settled by its worker (skipped, not waited for:
 * that worker may be waiting for the endpoint row this transaction holds).
 */
export async function exhaustWaiting(
  trx: Trx<WebhooksTables>,
  endpointId: string,
  reason: string,
  now: Date,
): Promise<void> {
  await executePrepared(
    trx,
    sql`
    with waiting as (
      select w.item_id from outbound_work w join webhook_deliveries d on d.id = w.item_id
      where w.target = 'webhook.delivery' and d.endpoint_id = ${endpointId} and ${notHeld(now)}
      for update of w skip locked),
    withdrawn as (delete from outbound_work w using waiting where w.target = 'webhook.delivery' and w.item_id = waiting.item_id returning w.item_id)
    update webhook_deliveries d set status = 'exhausted', next_attempt_at = null, last_error = ${reason}, updated_at = ${now}
    from withdrawn where d.id = withdrawn.item_id and d.status in ('pending', 'failed')`,
  );
}

/**
 * Deletes up to `limit` of a company's settled deliveries (succeeded, exhausted) made before `before`, with their
 * attempts, in one statement (the attempts' foreign key is checked at its end); the number deleted. Per company, so
 * it walks the listing index (company, environment, created_at) rather than the whole table. A delivery re-sent
 * meanwhile is pending again and stays; one being re-sent right now is locked and skipped.
 */
export async function purgeSettledDeliveries(
  db: Db<WebhooksTables>,
  companyId: string,
  environment: FiscalEnvironment,
  before: Date,
  limit: number,
): Promise<number> {
  const result = await sql<{ id: string }>`
    with doomed as (
      select id from webhook_deliveries
      where company_id = ${companyId} and environment = ${environment} and created_at < ${before} and status in ('succeeded', 'exhausted')
      limit ${limit}
      for update skip locked),
    attempts as (delete from webhook_attempts a using doomed d where a.delivery_id = d.id)
    delete from webhook_deliveries w using doomed d where w.id = d.id
    returning w.id`.execute(db);
  return result.rows.length;
}

/**
 * Deletes up to `limit` of a company's events fanned out before `before`; the number deleted. Events with a dedupe
 * key stay: the key is what keeps a once-only event (a certificate's expiry warning, a range running low) from
 * being made again. Per company, through domain_events_by_company (company, occurred_at).
 */
export async function purgeDispatchedEvents(
  db: Db<WebhooksTables>,
  companyId: string,
  environment: FiscalEnvironment,
  before: Date,
  limit: number,
): Promise<number> {
  const result = await sql<{ id: string }>`
    delete from domain_events where id in (
      select id from domain_events
      where company_id = ${companyId} and occurred_at < ${before} and environment = ${environment} and dispatched_at is not null and dedupe_key is null
      limit ${limit}
      for update skip locked)
    returning id`.execute(db);
  return result.rows.length;
}
