// The send columns of documents (docs/architecture.md: documents owns the row and its one timeline), changed as
// sending moves a document through DGII (modules/sending): each change applies only while what the worker or poll
// saw still holds, with what it records, in one statement. Sending decides the changes; their SQL stays here, so
// only documents names its tables.
import { sql, type RawBuilder } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { AnyDb } from '../../platform/db/database.js';
import { executePrepared } from '../../platform/db/prepared.js';
import type { DgiiMessageRow } from '../../platform/db/schema.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import { unnested, type InputColumn } from '../../platform/db/unnest.js';
import { outboxColumns, outboxInsertCtes, type DomainEvent } from '../../platform/events/domain-events.js';
import { groupCommit } from '../../platform/group-commit.js';
import { correlationIdNow } from '../../platform/observability/correlation.js';
import { enqueueSelected, settleHeld } from '../../platform/work/outbound-work.repo.js';
import type { DocumentsTables, DocumentStatus, SendRoute } from './tables.js';

/** The send columns a change may set. */
export interface SendStateChange {
  status?: DocumentStatus;
  send_route?: SendRoute;
  send_attempts?: number;
  send_lease_id?: string | null;
  send_lease_until?: Date | null;
  send_due_at?: Date | null;
  track_id?: string | null;
  dgii_estado?: string | null;
  dgii_codigo?: string | null;
  dgii_messages?: DgiiMessageRow[];
  secuencia_utilizada?: boolean | null;
  poll_count?: number;
  next_poll_at?: Date | null;
  sent_at?: Date | null;
  final_at?: Date | null;
  updated_at: Date;
}

/** Sets document `id`'s send columns, under the caller's transaction and its lock on the row. */
export async function updateDocument(trx: AnyTrx, id: string, change: SendStateChange): Promise<void> {
  const { dgii_messages: messages, ...rest } = change;
  await tablesOf<DocumentsTables>(trx)
    .updateTable('documents')
    .set({ ...rest, ...(messages === undefined ? {} : { dgii_messages: JSON.stringify(messages) }) })
    .where('id', '=', id)
    .execute();
}

/**
 * What must still hold of a document's current row for a change to apply: the lease a worker took, or the state
 * (and trackId, and polls counted) a poll saw.
 */
export interface ExpectedState {
  leaseId?: string;
  status?: DocumentStatus;
  trackId?: string;
  pollCount?: number;
}

/** What is written with a change, only when the change applied. */
export interface ChangeRecords {
  event?: { at: Date; type: string; status: DocumentStatus | null; cause: string };
  closeFailedJobs?: { at: Date; because: string };
  domainEvent?: DomainEvent;
  /** The attempt's queue row, settled under its lease (platform/work): deleted, or due again at `next`. */
  settleWork?: { target: string; leaseId: string; next: Date | null };
  /**
   * Work put in a queue for the document (its send, its first poll, its delivery to the buyer), due at `dueAt`,
   * attempts counted from 0. `openDelivery`: the work is the delivery to the buyer, whose row (document_deliveries,
   * modules/buyer-delivery) opens `pending` with it.
   */
  enqueueWork?: { target: string; environment: FiscalEnvironment; dueAt: Date; openDelivery?: true };
}

/**
 * One conditional change of one document: `change` applies to document `id` only while `expected` holds.
 * `correlationId`: the request's or work's its records carry (timeline entry, event, queued work); by default the one
 * under way when it is applied.
 */
export interface DocumentChange {
  id: string;
  expected: ExpectedState;
  change: SendStateChange;
  records: ChangeRecords;
  correlationId?: string;
}

/** PostgreSQL's type of each column a change may set, for the arrays a batch of changes is sent as. */
const changeColumnTypes: Record<keyof SendStateChange, string> = {
  status: 'text',
  send_route: 'text',
  send_attempts: 'int4',
  send_lease_id: 'text',
  send_lease_until: 'timestamptz',
  send_due_at: 'timestamptz',
  track_id: 'text',
  dgii_estado: 'text',
  dgii_codigo: 'text',
  dgii_messages: 'jsonb',
  secuencia_utilizada: 'bool',
  poll_count: 'int4',
  next_poll_at: 'timestamptz',
  sent_at: 'timestamptz',
  final_at: 'timestamptz',
  updated_at: 'timestamptz',
};

/** Each condition of ExpectedState: the column it reads and its type. */
const expectedColumns = {
  leaseId: ['send_lease_id', 'text'],
  status: ['status', 'text'],
  trackId: ['track_id', 'text'],
  pollCount: ['poll_count', 'int4'],
} as const satisfies Record<keyof ExpectedState, readonly [string, string]>;

/**
 * The shape of a change: the columns it sets, the conditions it has and the records it writes. Changes of one shape
 * go in one statement, whose text depends on the shape alone (prepared: platform/db/prepared.ts).
 */
export function changeShape(change: DocumentChange): string {
  let shape = '';
  for (const key in changeColumnTypes) shape += change.change[key as keyof SendStateChange] === undefined ? '0' : '1';
  for (const key in expectedColumns) shape += change.expected[key as keyof ExpectedState] === undefined ? '0' : '1';
  const { event, closeFailedJobs, domainEvent, settleWork, enqueueWork } = change.records;
  const settle = settleWork === undefined ? '0' : settleWork.next === null ? 'd' : 'r';
  const queue = enqueueWork === undefined ? '0' : enqueueWork.openDelivery === true ? 'o' : '1';
  return `${shape}${event === undefined ? '0' : '1'}${closeFailedJobs === undefined ? '0' : '1'}${domainEvent === undefined ? '0' : '1'}${settle}${queue}`;
}

/**
 * Applies `changes`, each to its document only while its `expected` holds of the current row, writing its `records`
 * only when it did, in ONE statement per shape (changeShape) of data-modifying CTEs over the changes sent as arrays (atomic without BEGIN and COMMIT: one round trip, one WAL flush for the lot). The conditions are the
 * UPDATE's WHERE, so PostgreSQL checks them on each row's latest version, after waiting for any transaction holding
 * it (READ COMMITTED re-checks an UPDATE's WHERE): a worker whose lease passed, or a stale poll, changes nothing and
 * records nothing. Whether each change applied, in order. Two changes of one document go in statements one after
 * the other, as they would one at a time (an UPDATE changes a row once, whatever its FROM matches).
 */
export async function changeDocumentsIf(
  executor: AnyDb | AnyTrx,
  changes: readonly DocumentChange[],
): Promise<boolean[]> {
  const applied: boolean[] = [];
  const under = correlationIdNow();
  let pending = changes.map((change, index) => ({
    change: { ...change, correlationId: change.correlationId ?? under },
    index,
  }));
  while (pending.length > 0) {
    // This round: the first pending change of each document; the others wait for the next.
    const seen = new Set<string>();
    const round = pending.filter(({ change }) => !seen.has(change.id) && seen.add(change.id));
    const taken = new Set(round);
    pending = pending.filter((entry) => !taken.has(entry));
    // One statement per shape (its text depends on the shape).
    const shapes = new Map<string, typeof round>();
    for (const entry of round) {
      const shape = changeShape(entry.change);
      shapes.set(shape, [...(shapes.get(shape) ?? []), entry]);
    }
    for (const group of shapes.values()) {
      const changed = await changeDistinctDocuments(
        executor,
        group.map(({ change }) => change),
      );
      for (const { change, index } of group) applied[index] = changed.has(change.id);
    }
  }
  return applied;
}

async function changeDistinctDocuments(
  executor: AnyDb | AnyTrx,
  changes: readonly DocumentChange[],
): Promise<Set<string>> {
  const [first] = changes;
  if (first === undefined) return new Set();
  const shape = changeShape(first);
  if (changes.some((change) => changeShape(change) !== shape))
    throw new Error('changeDistinctDocuments: changes of different shapes in one statement');
  const columns: InputColumn[] = [
    { name: 'id', type: 'text', values: changes.map((change) => change.id) },
    { name: 'correlation_id', type: 'text', values: changes.map((change) => change.correlationId) },
  ];
  const add = (name: string, type: string, value: (change: DocumentChange) => unknown) => {
    columns.push({ name, type, values: changes.map(value) });
  };
  const sets: RawBuilder<unknown>[] = [];
  for (const key of Object.keys(changeColumnTypes) as (keyof SendStateChange)[]) {
    if (first.change[key] === undefined) continue;
    const type = changeColumnTypes[key];
    // jsonb travels as text: pg writes a JS array parameter as a PostgreSQL array, not as JSON.
    add(`set_${key}`, type === 'jsonb' ? 'text' : type, (change) =>
      key === 'dgii_messages' ? JSON.stringify(change.change[key]) : change.change[key],
    );
    sets.push(sql`${sql.ref(key)} = i.${sql.ref(`set_${key}`)}${type === 'jsonb' ? sql`::jsonb` : sql``}`);
  }
  const conditions: RawBuilder<unknown>[] = [sql`d.id = i.id`];
  for (const key of Object.keys(expectedColumns) as (keyof ExpectedState)[]) {
    if (first.expected[key] === undefined) continue;
    const [column, type] = expectedColumns[key];
    add(`expected_${key}`, type, (change) => change.expected[key]);
    conditions.push(sql`d.${sql.ref(column)} = i.${sql.ref(`expected_${key}`)}`);
  }
  // Each part below reads `changed`: it writes once for each change that applied, else not at all.
  const parts: RawBuilder<unknown>[] = [];
  const records =
    <T>(pick: (records: ChangeRecords) => T | undefined) =>
    (change: DocumentChange) =>
      pick(change.records) as T;
  if (first.records.event !== undefined) {
    const event = records((r) => r.event);
    add('event_at', 'timestamptz', (c) => event(c).at);
    add('event_type', 'text', (c) => event(c).type);
    add('event_status', 'text', (c) => event(c).status);
    add('event_cause', 'text', (c) => event(c).cause);
    parts.push(sql`event as (
      insert into document_events (document_id, at, type, status, cause, correlation_id)
      select i.id, i.event_at, i.event_type, i.event_status, i.event_cause, i.correlation_id
      from input i join changed c on c.id = i.id)`);
  }
  if (first.records.closeFailedJobs !== undefined) {
    const close = records((r) => r.closeFailedJobs);
    add('closed_at', 'timestamptz', (c) => close(c).at);
    add('closed_because', 'text', (c) => close(c).because);
    parts.push(sql`closed as (
      update failed_jobs f set closed_at = i.closed_at, closed_because = i.closed_because
      from input i join changed c on c.id = i.id
      where f.document_id = i.id and f.closed_at is null)`);
  }
  if (first.records.domainEvent !== undefined) {
    columns.push(
      ...outboxColumns(
        changes.map((change) => ({
          ...(change.records.domainEvent as DomainEvent),
          correlationId: change.correlationId,
        })),
      ),
    );
    parts.push(outboxInsertCtes('changed'));
  }
  if (first.records.settleWork !== undefined) {
    const settle = records((r) => r.settleWork);
    add('work_target', 'text', (c) => settle(c).target);
    add('work_lease_id', 'text', (c) => settle(c).leaseId);
    const held = {
      from: sql`input i join changed c on c.id = i.id`,
      target: sql`i.work_target`,
      itemId: sql`i.id`,
      leaseId: sql`i.work_lease_id`,
    };
    if (first.records.settleWork.next === null) {
      parts.push(sql`settled as (${settleHeld(held)})`);
    } else {
      add('work_next', 'timestamptz', (c) => settle(c).next);
      parts.push(sql`settled as (${settleHeld({ ...held, next: sql`i.work_next` })})`);
    }
  }
  if (first.records.enqueueWork !== undefined) {
    const enqueue = records((r) => r.enqueueWork);
    add('queue_target', 'text', (c) => enqueue(c).target);
    add('queue_environment', 'text', (c) => enqueue(c).environment);
    add('queue_due_at', 'timestamptz', (c) => enqueue(c).dueAt);
    parts.push(
      sql`queued as (${enqueueSelected(
        sql`select i.queue_target, i.id, i.queue_environment, i.queue_due_at, i.correlation_id from input i join changed c on c.id = i.id`,
      )})`,
    );
    if (first.records.enqueueWork.openDelivery === true)
      parts.push(sql`delivery as (
        insert into document_deliveries (document_id, company_id, environment, status, next_attempt_at, created_at, updated_at)
        select c.id, c.company_id, i.queue_environment, 'pending', i.queue_due_at, i.queue_due_at, i.queue_due_at
        from input i join changed c on c.id = i.id
        on conflict (document_id) do nothing)`);
  }
  const input = sql`input as (select * from ${unnested(columns, 'i')})`;
  const update = sql`changed as (
    update documents d set ${sql.join(sets)} from input i where ${sql.join(conditions, sql` and `)} returning d.id, d.company_id)`;
  // Every batch of a shape sends the same text, whatever its size: prepared (platform/db/prepared.ts).
  const result = await executePrepared(
    executor,
    sql<{ id: string }>`with ${sql.join([input, update, ...parts], sql`, `)} select id from changed`,
  );
  return new Set(result.rows.map((row) => row.id));
}

/**
 * changeDocumentsIf one change at a time for the caller, batched underneath: the changes asked for while a statement
 * of their shape runs go together in the next (platform/group-commit.ts). Whether the change applied.
 */
export function groupedDocumentChanges(executor: AnyDb | AnyTrx): (change: DocumentChange) => Promise<boolean> {
  const run = groupCommit((changes: DocumentChange[]) => changeDocumentsIf(executor, changes), { maxBatch: 100 });
  // The caller's correlation id, taken now: the batch runs under whichever caller set it off.
  return (change) => run({ correlationId: correlationIdNow(), ...change }, changeShape(change));
}
