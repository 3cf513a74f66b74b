// How each settlement of a delivery shows, written in the transaction that settles its queue row under the lease
// (platform/work): the delivery's row, a timeline entry for the attempt and its outcome, the ARECF's artefact row, the
// webhook event, and the failed job that a delivery out of attempts opens (entregar closes it).
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { newId } from '../../platform/ids.js';
import type { Trx } from '../../platform/db/transact.js';
import type { BuyerDeliveryChannel } from '../../platform/db/schema.js';
import type { Settlement } from '../../platform/work/work-engine.js';
import { deliveryChannelNames, documentEventInsertStatement, insertArtefactsStatement } from '../documents/index.js';
import { openFailedJob } from '../sending/index.js';
import type { Attempted, BuyerDeliveryDeps, Settled } from './buyer-delivery.deps.js';
import { closeFailedJobs, updateDelivery, type DeliveryItem } from './buyer-delivery.repo.js';

/** The failed job's kind (GET /trabajos-fallidos). */
export const failedJobKind = 'buyer_delivery';

function where(target: string | null): string {
  return target === null ? '' : ` to ${target}`;
}

function named(channel: BuyerDeliveryChannel | null): string {
  return channel === null ? 'delivery' : `delivery by ${deliveryChannelNames[channel]}`;
}

export async function recordSettlement(
  deps: Pick<BuyerDeliveryDeps, 'clock' | 'environment' | 'count'>,
  trx: Trx,
  { delivery, document }: DeliveryItem,
  settlement: Settlement<Settled, Attempted>,
): Promise<void> {
  const now = deps.clock.now();
  const base = { documentId: document.id, eNCF: document.encf, ecfType: document.ecf_type };
  const event = (type: string, cause: string) =>
    documentEventInsertStatement(trx, { documentId: document.id, at: now, type, status: null, cause }).execute();
  const attempt = `attempt ${String(settlement.attempts)}`;
  switch (settlement.kind) {
    case 'done': {
      const { result } = settlement;
      if (result.arecf !== undefined) await insertArtefactsStatement(trx, [result.arecf.artefact]).execute();
      await updateDelivery(trx, document.id, {
        channel: result.channel,
        status: result.status,
        attempts: settlement.attempts,
        last_error: null,
        reason: result.reason,
        target: result.target,
        arecf_estado: result.arecf?.estado ?? null,
        arecf_motivo: result.arecf?.motivo ?? null,
        arecf_fecha_hora: result.arecf?.fechaHora ?? null,
        arecf_version: result.arecf?.artefact.version ?? null,
        message_id: result.messageId ?? null,
        next_attempt_at: null,
        delivered_at: result.status === 'delivered' ? now : null,
        updated_at: now,
      });
      const because = result.reason === null ? '' : `: ${result.reason}`;
      const arecf =
        result.arecf === undefined ? '' : ` (ARECF kept as arecf-xml v${String(result.arecf.artefact.version)})`;
      await event(
        `delivery.${result.status}`,
        result.status === 'skipped'
          ? `nothing delivered${because}`
          : `${named(result.channel)}, ${attempt}: ${result.status.replace('_', ' ')}${where(result.target)}${arecf}${because}`,
      );
      deps.count(result.channel, result.status);
      if (result.status === 'delivered') {
        await closeFailedJobs(trx, document.id, failedJobKind, { at: now, because: 'delivered to the buyer' });
        await recordDomainEvent(trx, {
          companyId: document.company_id,
          environment: deps.environment,
          type: 'document.delivered',
          payload: {
            ...base,
            canal: result.channel === 'receiver' ? 'receptor' : 'correo',
            destino: result.target ?? '',
            attempts: settlement.attempts,
            estado: result.arecf?.estado ?? null,
            codigoMotivoNoRecibido: result.arecf?.motivo ?? null,
            messageId: result.messageId ?? null,
          },
          occurredAt: now,
        });
      } else if (result.status === 'not_received') {
        await recordDomainEvent(trx, {
          companyId: document.company_id,
          environment: deps.environment,
          type: 'document.not_received',
          payload: {
            ...base,
            destino: result.target ?? '',
            attempts: settlement.attempts,
            codigoMotivoNoRecibido: result.arecf?.motivo ?? '',
          },
          occurredAt: now,
        });
      }
      return;
    }
    case 'retry':
      await updateDelivery(trx, document.id, {
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
      await updateDelivery(trx, document.id, {
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
