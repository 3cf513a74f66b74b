// A document's delivery to its buyer as the tests read it (GET /documentos/:id `entrega`), and the wait for it to
// settle, for the tests of the receiver and e-mail channels.
import assert from 'node:assert/strict';
import type { SendingWorld } from './sending-kit.js';
import { until } from './until.js';

export interface Delivery {
  canal: string | null;
  status: string;
  attempts: number;
  lastError: string | null;
  reason: string | null;
  destino: string | null;
  acuseRecibo: {
    estado: string;
    codigoMotivoNoRecibido: string | null;
    fechaHoraAcuseRecibo: string | null;
    version: number;
  } | null;
  messageId: string | null;
  updatedAt: string;
}

export interface DeliveredDocument {
  id: string;
  eNCF: string;
  status: string;
  fechaEmision: string;
  montoTotal: string;
  timbreUrl: string;
  entrega: Delivery | null;
  artefacts: { type: string; version: number; sha256: string }[];
}

const settled = new Set(['delivered', 'not_received', 'failed', 'skipped']);

export async function readDelivered(world: SendingWorld, id: string): Promise<DeliveredDocument> {
  return (await world.call('GET', `/api/v1/documentos/${id}`)).json<{ data: DeliveredDocument }>().data;
}

/** Creates the document, sends it and waits for DGII's acceptance. */
export async function issueAccepted(world: SendingWorld, body: Record<string, unknown>): Promise<DeliveredDocument> {
  const created = await world.create(body);
  await world.send(created.id);
  const verdict = await world.untilSettled(created.id);
  assert.equal(verdict.status, 'accepted', JSON.stringify(verdict.dgii));
  return readDelivered(world, created.id);
}

/** The document once its delivery has settled (delivered, not received, failed or skipped). */
export async function untilDeliverySettled(
  world: SendingWorld,
  id: string,
  timeoutMs = 30_000,
): Promise<DeliveredDocument & { entrega: Delivery }> {
  const document = await until(
    () => readDelivered(world, id),
    (seen) => seen.entrega !== null && settled.has(seen.entrega.status),
    `delivery of ${id}`,
    timeoutMs,
  );
  assert.ok(document.entrega !== null);
  return { ...document, entrega: document.entrega };
}
