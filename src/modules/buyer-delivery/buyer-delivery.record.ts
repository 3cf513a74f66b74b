// How each settlement of a delivery shows, written under the lease (platform/work): the delivery's row, a timeline
// entry for the attempt and its outcome, the ARECF's artefact row, the webhook event, and the failed job that a
// delivery out of attempts opens (entregar closes it). The done ones, most of them, go many to a statement that
// settles their queue rows too (recordDoneTogether): one at a time, a delivery cost eight round trips to record.
import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { compiledOnce } from '../../platform/db/prepared.js';
import { unnestedSlots, type InputColumn } from '../../platform/db/unnest.js';
import {
  outboxColumns,
  outboxInsertCtes,
  recordDomainEvent,
  type DomainEvent,
} from '../../platform/events/domain-events.js';
import { newId } from '../../platform/ids.js';
import type { Trx } from '../../platform/db/transact.js';
import { settledUnderLease } from '../../platform/work/outbound-work.repo.js';
import type { BuyerDeliveryChannel, DocumentsTables } from '../documents/index.js';
import type { Settlement } from '../../platform/work/work-engine.js';
import {
  deliveryChannelNames,
  documentEventInsertStatement,
  openFailedJob,
  updateBuyerDelivery,
  type ArtefactRow,
  type BuyerDeliveryItem,
  type BuyerDeliveryRow,
} from '../documents/index.js';
import type { Attempted, BuyerDeliveryDeps, Settled } from './buyer-delivery.deps.js';

/** The failed job's kind (GET /trabajos-fallidos). */
export const failedJobKind = 'buyer_delivery';

function where(target: string | null): string {
  return target === null ? '' : ` to ${target}`;
}

function named(channel: BuyerDeliveryChannel | null): string {
  return channel === null ? 'delivery' : `delivery by ${deliveryChannelNames[channel]}`;
}

/** What a done settlement writes: computed once, recorded alone (record) or with others (recordDone). */
export interface DoneRecord {
  documentId: string;
  /** The delivery row's columns a done attempt sets (the rest of what it sets is fixed: no error, nothing due). */
  change: Pick<
    BuyerDeliveryRow,
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
  > & { status: Settled['status'] };
  event: { type: string; cause: string };
  artefact: ArtefactRow | undefined;
  /** Delivered: the document's open failed delivery job is closed. */
  closesFailedJobs: boolean;
  domainEvent: DomainEvent<'document.delivered' | 'document.not_received'> | undefined;
}

export function doneRecord(
  deps: Pick<BuyerDeliveryDeps, 'clock' | 'environment'>,
  { document }: BuyerDeliveryItem,
  result: Settled,
  attempts: number,
): DoneRecord {
  const now = deps.clock.now();
  const base = { documentId: document.id, eNCF: document.encf, ecfType: document.ecf_type };
  const because = result.reason === null ? '' : `: ${result.reason}`;
  const arecf =
    result.arecf === undefined ? '' : ` (ARECF kept as arecf-xml v${String(result.arecf.artefact.version)})`;
  const event = (): DoneRecord['domainEvent'] => {
    const at = { companyId: document.company_id, environment: deps.environment, occurredAt: now };
    if (result.status === 'delivered')
      return {
        ...at,
        type: 'document.delivered',
        payload: {
          ...base,
          canal: result.channel === 'receiver' ? 'receptor' : 'correo',
          destino: result.target ?? '',
          attempts,
          estado: result.arecf?.estado ?? null,
          codigoMotivoNoRecibido: result.arecf?.motivo ?? null,
          messageId: result.messageId ?? null,
        },
      };
    if (result.status === 'not_received')
      return {
        ...at,
        type: 'document.not_received',
        payload: {
          ...base,
          destino: result.target ?? '',
          attempts,
          codigoMotivoNoRecibido: result.arecf?.motivo ?? '',
        },
      };
    return undefined;
  };
  return {
    documentId: document.id,
    change: {
      channel: result.channel,
      status: result.status,
      attempts,
      reason: result.reason,
      target: result.target,
      arecf_estado: result.arecf?.estado ?? null,
      arecf_motivo: result.arecf?.motivo ?? null,
      arecf_fecha_hora: result.arecf?.fechaHora ?? null,
      arecf_version: result.arecf?.artefact.version ?? null,
      message_id: result.messageId ?? null,
      delivered_at: result.status === 'delivered' ? now : null,
      updated_at: now,
    },
    event: {
      type: `delivery.${result.status}`,
      cause:
        result.status === 'skipped'
          ? `nothing delivered${because}`
          : `${named(result.channel)}, attempt ${String(attempts)}: ${result.status.replace('_', ' ')}${where(result.target)}${arecf}${because}`,
    },
    artefact: result.arecf?.artefact,
    closesFailedJobs: result.status === 'delivered',
    domainEvent: event(),
  };
}

/**
 * Done settlements in ONE statement, whatever their number: the delivery rows, the timeline, the ARECFs' artefact
 * rows, the failed jobs closed and the webhook events. `settle`: the queue's target, whose rows the statement settles
 * under the leases given (platform/work/outbound-work.repo.ts settledUnderLease), recording only the deliveries still
 * held; without it the caller settled them already. The ids recorded.
 */
export async function recordDoneTogether(
  executor: Db<DocumentsTables> | Trx<DocumentsTables>,
  records: readonly (DoneRecord & { leaseId: string | null })[],
  settle: string | undefined,
): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const column = (name: string, type: string, value: (record: DoneRecord & { leaseId: string | null }) => unknown) => ({
    name,
    type,
    values: records.map(value),
  });
  const columns = [
    column('id', 'text', (r) => r.documentId),
    column('lease_id', 'text', (r) => r.leaseId),
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
    ...outboxColumns(records.map((r) => r.domainEvent)),
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
      insert into document_events (document_id, at, type, status, cause)
      select r.id, r.updated_at, r.event_type, null, r.event_cause from recorded r),
    artefact as (
      insert into document_artefacts (document_id, kind, version, blob_key, sha256, size, content_type, created_at)
      select r.id, r.artefact_kind, r.artefact_version, r.artefact_blob_key, r.artefact_sha256, r.artefact_size,
        r.artefact_content_type, r.artefact_created_at
      from recorded r where r.artefact_kind is not null),
    closed as (
      update failed_jobs f set closed_at = r.updated_at, closed_because = 'delivered to the buyer'
      from recorded r
      where r.closes_failed_jobs and f.document_id = r.id and f.kind = ${failedJobKind} and f.closed_at is null),
    eventful as (select r.id from recorded r where r.outbox_id is not null),
    ${outboxInsertCtes('eventful')}
    select id from recorded`;
  });
}

export async function recordSettlement(
  deps: Pick<BuyerDeliveryDeps, 'clock' | 'environment' | 'count'>,
  trx: Trx<DocumentsTables>,
  item: BuyerDeliveryItem,
  settlement: Settlement<Settled, Attempted>,
): Promise<void> {
  const { delivery, document } = item;
  const now = deps.clock.now();
  const base = { documentId: document.id, eNCF: document.encf, ecfType: document.ecf_type };
  const event = (type: string, cause: string) =>
    documentEventInsertStatement(trx, { documentId: document.id, at: now, type, status: null, cause }).execute();
  const attempt = `attempt ${String(settlement.attempts)}`;
  switch (settlement.kind) {
    case 'done': {
      const { result } = settlement;
      await recordDoneTogether(
        trx,
        [{ ...doneRecord(deps, item, result, settlement.attempts), leaseId: null }],
        undefined,
      );
      deps.count(result.channel, result.status);
      return;
    }
    case 'retry':
      await updateBuyerDelivery(trx, document.id, {
        channel: settlement.failure?.channel ?? delivery.channel,
        status: 'pending',
        attempts: settlement.attempts,
        last_error: settlement.reason,
        target: settlement.failure?.target ?? delivery.target,
        next_attempt_at: settlement.at,
        updated_at: now,
      });
      await event(
        'delivery.attempt_failed',
        `${named(settlement.failure?.channel ?? null)}, ${attempt} of ${String(settlement.maxAttempts)} failed${where(settlement.failure?.target ?? null)}: ${settlement.reason}; next attempt at ${settlement.at.toISOString()}`,
      );
      deps.count(settlement.failure?.channel ?? null, 'retry');
      return;
    case 'exhausted': {
      const channel = settlement.failure?.channel ?? delivery.channel;
      await updateBuyerDelivery(trx, document.id, {
        channel,
        status: 'failed',
        attempts: settlement.attempts,
        last_error: settlement.reason,
        target: settlement.failure?.target ?? delivery.target,
        next_attempt_at: null,
        updated_at: now,
      });
      const ended =
        settlement.attempts < settlement.maxAttempts
          ? 'refused for good'
          : `failed, no attempts left of ${String(settlement.maxAttempts)}`;
      await event(
        'delivery.failed',
        `${named(channel)}, ${attempt} ${ended}${where(settlement.failure?.target ?? null)}: ${settlement.reason}; POST /api/v1/documentos/${document.id}/entregar starts it again`,
      );
      deps.count(channel, 'failed');
      await openFailedJob(trx, {
        id: newId('fjb'),
        companyId: document.company_id,
        environment: deps.environment,
        kind: failedJobKind,
        documentId: document.id,
        reason: settlement.reason,
        attempts: settlement.attempts,
        at: now,
      });
      await recordDomainEvent(trx, {
        companyId: document.company_id,
        environment: deps.environment,
        type: 'document.delivery_failed',
        payload: {
          ...base,
          canal: channel === 'receiver' ? 'receptor' : channel === 'email' ? 'correo' : null,
          reason: settlement.reason,
          attempts: settlement.attempts,
        },
        occurredAt: now,
      });
      return;
    }
    case 'deferred':
    case 'again':
      throw new Error(`a delivery to a buyer is never ${settlement.kind}`);
  }
}
