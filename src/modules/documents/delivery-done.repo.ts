// A delivery attempt that is done (delivered, not received, or nothing to deliver), recorded in ONE statement with
// the others done alongside it (modules/buyer-delivery, its recordDone): the delivery rows, the timeline, the
// ARECFs' artefact rows, the failed jobs closed, the webhook events, and the queue rows settled under their leases.
// One at a time, a delivery cost eight round trips to record. The statement changes documents' tables
// (docs/architecture.md), so it is here; buyer-delivery decides what each attempt writes.
import { sql } from 'kysely';
import type { AnyDb } from '../../platform/db/database.js';
import { compiledOnce } from '../../platform/db/prepared.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import { unnestedSlots, type InputColumn } from '../../platform/db/unnest.js';
import { outboxColumns, outboxInsertCtes, type DomainEvent } from '../../platform/events/domain-events.js';
import { settledUnderLease } from '../../platform/work/outbound-work.repo.js';
import type { ArtefactRow, DeliveryRow } from './documents.repo.js';
import type { BuyerDeliveryStatus } from './tables.js';

/** The kind of the failed job a delivery out of attempts opens (GET /trabajos-fallidos); a delivered one closes it. */
export const buyerDeliveryFailedJobKind = 'buyer_delivery';

/** What a done attempt writes: computed once, recorded alone or with others. */
export interface BuyerDeliveryDone {
  documentId: string;
  /** The delivery row's columns a done attempt sets (the rest of what it sets is fixed: no error, nothing due). */
  change: Pick<
    DeliveryRow,
    | 'channel'
    | 'attempts'
    | 'reason'
    | 'target'
    | 'arecf_estado'
    | 'arecf_motivo'
    | 'arecf_fecha_hora'
    | 'arecf_version'
    | 'message_id'
    | 'delivered_at'
    | 'updated_at'
  > & { status: Extract<BuyerDeliveryStatus, 'delivered' | 'not_received' | 'skipped'> };
  event: { type: string; cause: string };
  artefact: ArtefactRow | undefined;
  /** Delivered: the document's open failed delivery job is closed. */
  closesFailedJobs: boolean;
  domainEvent: DomainEvent<'document.delivered' | 'document.not_received'> | undefined;
}

/**
 * A done attempt with the lease its queue row is held under (null: the caller settled it already), and the
 * correlation id its timeline entry and event carry (the attempt's: recorded in a batch run under another's).
 */
type HeldDone = BuyerDeliveryDone & { leaseId: string | null; correlationId: string };

/**
 * Done settlements in ONE statement, whatever their number: the delivery rows, the timeline, the ARECFs' artefact
 * rows, the failed jobs closed and the webhook events. `settle`: the queue's target, whose rows the statement settles
 * under the leases given (platform/work/outbound-work.repo.ts settledUnderLease), recording only the deliveries still
 * held; without it the caller settled them already. The ids recorded.
 */
export async function recordBuyerDeliveriesDone(
  executor: AnyDb | AnyTrx,
  records: readonly HeldDone[],
  settle: string | undefined,
): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const column = (name: string, type: string, value: (record: HeldDone) => unknown) => ({
    name,
    type,
    values: records.map(value),
  });
  const columns = [
    column('id', 'text', (r) => r.documentId),
    column('lease_id', 'text', (r) => r.leaseId),
    column('correlation_id', 'text', (r) => r.correlationId),
    column('channel', 'text', (r) => r.change.channel),
    column('status', 'text', (r) => r.change.status),
    column('attempts', 'int4', (r) => r.change.attempts),
    column('reason', 'text', (r) => r.change.reason),
    column('target', 'text', (r) => r.change.target),
    column('arecf_estado', 'text', (r) => r.change.arecf_estado),
    column('arecf_motivo', 'text', (r) => r.change.arecf_motivo),
    column('arecf_fecha_hora', 'text', (r) => r.change.arecf_fecha_hora),
    column('arecf_version', 'int4', (r) => r.change.arecf_version),
    column('message_id', 'text', (r) => r.change.message_id),
    column('delivered_at', 'timestamptz', (r) => r.change.delivered_at),
    column('updated_at', 'timestamptz', (r) => r.change.updated_at),
    column('event_type', 'text', (r) => r.event.type),
    column('event_cause', 'text', (r) => r.event.cause),
    column('closes_failed_jobs', 'bool', (r) => r.closesFailedJobs),
    column('artefact_kind', 'text', (r) => r.artefact?.kind ?? null),
    column('artefact_version', 'int4', (r) => r.artefact?.version ?? null),
    column('artefact_blob_key', 'text', (r) => r.artefact?.blob_key ?? null),
    column('artefact_sha256', 'text', (r) => r.artefact?.sha256 ?? null),
    column('artefact_size', 'int4', (r) => r.artefact?.size ?? null),
    column('artefact_content_type', 'text', (r) => r.artefact?.content_type ?? null),
    column('artefact_created_at', 'timestamptz', (r) => r.artefact?.created_at ?? null),
    ...outboxColumns(
      records.map((r) =>
        r.domainEvent === undefined ? undefined : { ...r.domainEvent, correlationId: r.correlationId },
      ),
    ),
  ];
  let statement = doneStatements.get(settle ?? '');
  if (statement === undefined) {
    statement = doneStatement(columns, settle);
    doneStatements.set(settle ?? '', statement);
  }
  const result = await statement(
    executor,
    columns.map((input) => input.values),
  );
  return new Set(result.rows.map((row) => row.id));
}

/** Per queue target ('' for none): the same columns in the same order every time, so one text each. */
const doneStatements = new Map<string, ReturnType<typeof doneStatement>>();

function doneStatement(columns: readonly Omit<InputColumn, 'values'>[], settle: string | undefined) {
  return compiledOnce<{ id: string }>((slot) => {
    const settled = settle === undefined ? sql`select id from input` : settledUnderLease(settle);
    return sql<{ id: string }>`
    with input as (select * from ${unnestedSlots(columns, 'i', slot)}),
    settled as (${settled}),
    recorded as (select i.* from input i join settled s on s.id = i.id),
    delivery as (
      update document_deliveries d set channel = r.channel, status = r.status, attempts = r.attempts, last_error = null,
        reason = r.reason, target = r.target, arecf_estado = r.arecf_estado, arecf_motivo = r.arecf_motivo,
        arecf_fecha_hora = r.arecf_fecha_hora, arecf_version = r.arecf_version, message_id = r.message_id,
        next_attempt_at = null, delivered_at = r.delivered_at, updated_at = r.updated_at
      from recorded r where d.document_id = r.id),
    event as (
      insert into document_events (document_id, at, type, status, cause, correlation_id)
      select r.id, r.updated_at, r.event_type, null, r.event_cause, r.correlation_id from recorded r),
    artefact as (
      insert into document_artefacts (document_id, kind, version, blob_key, sha256, size, content_type, created_at)
      select r.id, r.artefact_kind, r.artefact_version, r.artefact_blob_key, r.artefact_sha256, r.artefact_size,
        r.artefact_content_type, r.artefact_created_at
      from recorded r where r.artefact_kind is not null),
    closed as (
      update failed_jobs f set closed_at = r.updated_at, closed_because = 'delivered to the buyer'
      from recorded r
      where r.closes_failed_jobs and f.document_id = r.id and f.kind = ${buyerDeliveryFailedJobKind} and f.closed_at is null),
    eventful as (select r.id from recorded r where r.outbox_id is not null),
    ${outboxInsertCtes('eventful')}
    select id from recorded`;
  });
}
