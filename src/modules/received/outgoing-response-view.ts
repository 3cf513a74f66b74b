// A received document's commercial response as the API shows it, read by the received documents' views and by the
// response's own routes.
import type { Db } from '../../platform/db/database.js';
import * as responses from './outgoing-response.repo.js';
import type { CommercialResponseView } from './outgoing-response.schema.js';
import type { ReceivedTables } from './tables.js';

/** The commercial response of a received document with its deliveries, or null before one is made. */
export async function outgoingResponseOf(
  db: Db<ReceivedTables>,
  receivedId: string,
): Promise<CommercialResponseView | null> {
  const response = await responses.findResponse(db, receivedId);
  if (response === undefined) return null;
  const deliveries = await responses.deliveriesOf(db, receivedId);
  return {
    decision: response.decision,
    reason: response.reason,
    fechaHoraAprobacionComercial: response.fecha_hora_aprobacion,
    createdAt: response.created_at.toISOString(),
    deliveries: deliveries.map((delivery) => ({
      target: delivery.target,
      status: delivery.status,
      attempts: delivery.attempts,
      lastError: delivery.last_error,
      url: delivery.target_url,
      nextAttemptAt:
        delivery.status === 'failed' || delivery.status === 'pending'
          ? (delivery.next_attempt_at?.toISOString() ?? null)
          : null,
      deliveredAt: delivery.delivered_at?.toISOString() ?? null,
      answer: (delivery.answer ?? null) as Record<string, unknown> | null,
    })),
  };
}
