// How each settlement of a delivery shows, written under the lease (platform/work): the delivery's row, a timeline
// entry for the attempt and its outcome, the ARECF's artefact row, the webhook event, and the failed job that a
// delivery out of attempts opens (entregar closes it). The done ones, most of them, go many to a statement that
// settles their queue rows too (documents' recordBuyerDeliveriesDone): one at a time, a delivery cost eight round
// trips to record.
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { newId } from '../../platform/ids.js';
import { correlationIdNow } from '../../platform/observability/correlation.js';
import type { Trx } from '../../platform/db/transact.js';
import type { BuyerDeliveryChannel } from '../documents/index.js';
import type { Settlement } from '../../platform/work/work-engine.js';
import {
  buyerDeliveryFailedJobKind,
  deliveryChannelNames,
  documentEventInsertStatement,
  openFailedJob,
  recordBuyerDeliveriesDone,
  updateBuyerDelivery,
  type BuyerDeliveryDone,
  type BuyerDeliveryItem,
} from '../documents/index.js';
import type { Attempted, BuyerDeliveryDeps, Settled } from './buyer-delivery.deps.js';

function where(target: string | null): string {
  return target === null ? '' : ` to ${target}`;
}

function named(channel: BuyerDeliveryChannel | null): string {
  return channel === null ? 'delivery' : `delivery by ${deliveryChannelNames[channel]}`;
}

/** What a done settlement writes: computed once, recorded alone (recordSettlement) or with others (recordDone). */
export function doneRecord(
  deps: Pick<BuyerDeliveryDeps, 'clock' | 'environment'>,
  { document }: BuyerDeliveryItem,
  result: Settled,
  attempts: number,
): BuyerDeliveryDone {
  const now = deps.clock.now();
  const base = { documentId: document.id, eNCF: document.encf, ecfType: document.ecf_type };
  const because = result.reason === null ? '' : `: ${result.reason}`;
  const arecf =
    result.arecf === undefined ? '' : ` (ARECF kept as arecf-xml v${String(result.arecf.artefact.version)})`;
  const event = (): BuyerDeliveryDone['domainEvent'] => {
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

export async function recordSettlement(
  deps: Pick<BuyerDeliveryDeps, 'clock' | 'environment' | 'count'>,
  trx: Trx,
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
      await recordBuyerDeliveriesDone(
        trx,
        [{ ...doneRecord(deps, item, result, settlement.attempts), leaseId: null, correlationId: correlationIdNow() }],
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
        kind: buyerDeliveryFailedJobKind,
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
