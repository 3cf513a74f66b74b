import { sql, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import { olderThan } from '../../platform/db/older-than.js';
import { outboxColumns, outboxInsertCtes, type DomainEvent } from '../../platform/events/domain-events.js';
import { correlationIdNow } from '../../platform/observability/correlation.js';
import type { Db } from '../../platform/db/database.js';
import { executePrepared } from '../../platform/db/prepared.js';
import type {
  ReceivedArtefactKind,
  ReceivedArtefactsTable,
  ReceivedDocumentEventsTable,
  ReceivedDocumentsTable,
  ReceivedTables,
} from './tables.js';
import type { Trx } from '../../platform/db/transact.js';
import { tenantRow } from '../../platform/db/tenant-row.js';
import { unnested, type InputColumn } from '../../platform/db/unnest.js';

export type ReceivedRow = Selectable<ReceivedDocumentsTable>;
export type ReceivedArtefactRow = Selectable<ReceivedArtefactsTable>;
export type ReceivedEventRow = Selectable<ReceivedDocumentEventsTable>;

type Executor = Db<ReceivedTables> | Trx<ReceivedTables>;

export function insertArtefactsStatement(executor: Executor, rows: readonly ReceivedArtefactRow[]) {
  return executor.insertInto('received_artefacts').values([...rows]);
}

export function insertEventStatement(
  executor: Executor,
  event: { receivedDocumentId: string; at: Date; type: string; status: string | null; cause: string },
) {
  return executor.insertInto('received_document_events').values({
    received_document_id: event.receivedDocumentId,
    at: event.at,
    type: event.type,
    status: event.status,
    cause: event.cause,
    correlation_id: correlationIdNow(),
  });
}

/** An issuer's e-NCF as a company's receiver knows it. */
export interface ReceivedKey {
  companyId: string;
  environment: FiscalEnvironment;
  issuerRnc: string;
  encf: string;
}

/**
 * For each key, whether its company already received (Estado 0) that issuer's e-NCF: ONE statement for a batch of
 * receptions. Each key is looked up in the partial unique index (the status a literal: its predicate is that
 * literal) by a scalar subquery, which PostgreSQL runs per key: written as EXISTS, it became a semi join that hashed
 * every received document of the table (the planner's estimate of an unnest of parameters is no guide).
 */
export async function receivedAlready(db: Executor, keys: readonly ReceivedKey[]): Promise<boolean[]> {
  const result = await executePrepared(
    db,
    sql<{ n: string }>`
      select k.n from ${unnested(
        [
          { name: 'company_id', type: 'text', values: keys.map((key) => key.companyId) },
          { name: 'environment', type: 'text', values: keys.map((key) => key.environment) },
          { name: 'issuer_rnc', type: 'text', values: keys.map((key) => key.issuerRnc) },
          { name: 'encf', type: 'text', values: keys.map((key) => key.encf) },
        ],
        'k',
        { ordinality: 'n' },
      )}
      where (
        select true from received_documents r
        where r.company_id = k.company_id and r.environment = k.environment and r.issuer_rnc = k.issuer_rnc and r.encf = k.encf and r.status = 'received'
        limit 1)`,
  );
  const found = new Set(result.rows.map((row) => Number(row.n) - 1));
  return keys.map((_, index) => found.has(index));
}

/** The columns a reception inserts, with their types (commercial_status is set later, by the commercial response). */
const receivedColumns = [
  ['id', 'text'],
  ['company_id', 'text'],
  ['environment', 'text'],
  ['issuer_rnc', 'text'],
  ['encf', 'text'],
  ['ecf_type', 'text'],
  ['status', 'text'],
  ['reason_code', 'text'],
  ['issuer_name', 'text'],
  ['rnc_comprador', 'text'],
  ['fecha_emision', 'text'],
  ['monto_total', 'text'],
  ['total_itbis', 'text'],
  ['received_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
] as const satisfies readonly (readonly [keyof ReceivedRow, string])[];

const artefactColumnTypes = [
  ['received_document_id', 'text'],
  ['kind', 'text'],
  ['version', 'int4'],
  ['blob_key', 'text'],
  ['sha256', 'text'],
  ['size', 'int4'],
  ['content_type', 'text'],
  ['created_at', 'timestamptz'],
] as const satisfies readonly (readonly [keyof ReceivedArtefactRow, string])[];

/**
 * A reception to record: its row, its artefacts (archived already), its first timeline event and its outbox event,
 * both with the correlation id of the request that brought it (recorded in a batch run under another's).
 */
export interface ReceptionRecord {
  row: ReceivedRow;
  artefacts: readonly ReceivedArtefactRow[];
  event: { at: Date; type: string; status: string | null; cause: string };
  domainEvent: DomainEvent;
  correlationId: string;
}

/**
 * Records a batch of receptions in ONE statement of data-modifying CTEs over arrays (atomic without BEGIN and
 * COMMIT: one round trip and one WAL flush for the lot). Only Estado 0 rows are unique per issuer and e-NCF
 * (received_documents_once): a reception whose e-CF was received first, by an earlier statement or by a copy earlier
 * in this one, inserts nothing, and its artefacts and events, written only for the rows inserted, are left out with
 * it. Whether each reception was recorded, in order.
 */
export async function recordReceptions(db: Executor, receptions: readonly ReceptionRecord[]): Promise<boolean[]> {
  const rows = receptions.map((reception) => reception.row);
  const rowColumns = receivedColumns.map(([name, type]): InputColumn => ({
    name,
    type,
    values: rows.map((row) => row[name]),
  }));
  const events = receptions.map((reception) => reception.event);
  const eventColumns: InputColumn[] = [
    { name: 'event_at', type: 'timestamptz', values: events.map((event) => event.at) },
    { name: 'event_type', type: 'text', values: events.map((event) => event.type) },
    { name: 'event_status', type: 'text', values: events.map((event) => event.status) },
    { name: 'event_cause', type: 'text', values: events.map((event) => event.cause) },
    { name: 'correlation_id', type: 'text', values: receptions.map((reception) => reception.correlationId) },
  ];
  const domainEvents = receptions.map((reception) => ({
    ...reception.domainEvent,
    correlationId: reception.correlationId,
  }));
  const artefacts = receptions.flatMap((reception) => reception.artefacts);
  const artefactColumns = artefactColumnTypes.map(([name, type]): InputColumn => ({
    name,
    type,
    values: artefacts.map((artefact) => artefact[name]),
  }));
  const names = (columns: readonly (readonly [string, string])[]) => sql.join(columns.map(([name]) => sql.ref(name)));
  // Every batch sends the same text, whatever its size: prepared (platform/db/prepared.ts). The ON CONFLICT's
  // predicate is a literal, from which PostgreSQL infers the partial index.
  const result = await executePrepared(
    db,
    sql<{ id: string }>`
      with input as (select * from ${unnested([...rowColumns, ...eventColumns, ...outboxColumns(domainEvents)], 'i')}),
      inserted as (
        insert into received_documents (${names(receivedColumns)})
        select ${names(receivedColumns)} from input
        on conflict (company_id, environment, issuer_rnc, encf) where status = 'received' do nothing
        returning id
      ),
      artefacts as (
        insert into received_artefacts (${names(artefactColumnTypes)})
        select a.* from ${unnested(artefactColumns, 'a')}
        where a.received_document_id in (select id from inserted)
      ),
      events as (
        insert into received_document_events (received_document_id, at, type, status, cause, correlation_id)
        select i.id, i.event_at, i.event_type, i.event_status, i.event_cause, i.correlation_id
        from input i join inserted r on r.id = i.id
      ),
      ${outboxInsertCtes('inserted')}
      select id from inserted`,
  );
  const recorded = new Set(result.rows.map((row) => row.id));
  return rows.map((row) => recorded.has(row.id));
}

export function findReceived(
  db: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<ReceivedRow | undefined> {
  return db
    .selectFrom('received_documents')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
    .then((row) => tenantRow(row, companyId, environment));
}

export interface ListFilter {
  issuerRnc?: string | undefined;
  ecfType?: string | undefined;
  status?: ReceivedRow['status'] | undefined;
  receivedFrom?: Date | undefined;
  receivedTo?: Date | undefined;
  limit: number;
  after: { createdAt: Date; id: string } | undefined;
}

export function listReceived(
  db: Db<ReceivedTables>,
  companyId: string,
  environment: FiscalEnvironment,
  filter: ListFilter,
): Promise<ReceivedRow[]> {
  let query = db
    .selectFrom('received_documents')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment);
  if (filter.issuerRnc !== undefined) query = query.where('issuer_rnc', '=', filter.issuerRnc);
  if (filter.ecfType !== undefined) query = query.where('ecf_type', '=', filter.ecfType);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.receivedFrom !== undefined) query = query.where('received_at', '>=', filter.receivedFrom);
  if (filter.receivedTo !== undefined) query = query.where('received_at', '<', filter.receivedTo);
  const after = filter.after;
  if (after !== undefined) {
    query = query.where(olderThan(after, 'received_at'));
  }
  return query
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

export function artefactsOf(db: Db<ReceivedTables>, ids: readonly string[]): Promise<ReceivedArtefactRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('received_artefacts')
    .selectAll()
    .where('received_document_id', 'in', ids)
    .orderBy('kind')
    .orderBy('version')
    .execute();
}

export function findArtefact(
  db: Db<ReceivedTables>,
  id: string,
  kind: ReceivedArtefactKind,
): Promise<ReceivedArtefactRow | undefined> {
  return db
    .selectFrom('received_artefacts')
    .selectAll()
    .where('received_document_id', '=', id)
    .where('kind', '=', kind)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** A received document's timeline, oldest first. */
export function eventsOf(db: Db<ReceivedTables>, id: string): Promise<ReceivedEventRow[]> {
  return db
    .selectFrom('received_document_events')
    .selectAll()
    .where('received_document_id', '=', id)
    .orderBy('at')
    .orderBy('id')
    .execute();
}
