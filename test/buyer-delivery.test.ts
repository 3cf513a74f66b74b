// Every accepted e-CF reaches its buyer's receiver (issue 42; Informe Técnico §8 steps 3-4), through HTTP against a
// running app with a worker and the DGII sandbox, whose counterpart taxpayer plays the buyer: its directory lists it,
// its receiver answers signed ARECFs and acts out the faults the tests aim at it.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { counterpartRnc } from '../src/sandbox/counterpart/identity.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { until } from './support/until.js';
import { verifyWithXmlsec1Embedded, xmlsec1Available } from './support/xmldsig-kit.js';

type Json = Record<string, unknown>;

interface Delivery {
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
}

interface DeliveredDocument {
  id: string;
  eNCF: string;
  status: string;
  entrega: Delivery | null;
  artefacts: { type: string; version: number; sha256: string }[];
}

const settledDelivery = new Set(['delivered', 'not_received', 'failed', 'skipped']);

/** A document of `type` whose buyer is `buyer` (the counterpart unless said). */
function documentFor(type: '31' | '32' | '33' | '34' | '41' | '43' | '44' | '45' | '46' | '47', buyer?: Json): Json {
  const base = structuredClone(ecfDocuments[type]) as { Encabezado: Json };
  const current = (base.Encabezado['Comprador'] ?? {}) as Json;
  if (buyer !== undefined) base.Encabezado['Comprador'] = { ...current, ...buyer };
  return base;
}

describe('delivery to the buyer’s receiver', () => {
  let world: SendingWorld;

  before(async () => {
    world = await startSendingWorld({ env: { DELIVERY_RETRY_BASE_MS: '50', DELIVERY_MAX_ATTEMPTS: '6' } });
  });
  after(async () => {
    await world.close();
  });
  beforeEach(async () => {
    await world.sandbox.admin('DELETE', '/faults');
  });

  const read = async (id: string) =>
    (await world.call('GET', `/api/v1/documentos/${id}`)).json<{ data: DeliveredDocument }>().data;

  async function issueAccepted(body: Json): Promise<DeliveredDocument> {
    const created = await world.create(body);
    await world.send(created.id);
    const settled = await world.untilSettled(created.id);
    assert.equal(settled.status, 'accepted', JSON.stringify(settled.dgii));
    return read(created.id);
  }

  const untilDelivered = (id: string) =>
    until(
      () => read(id),
      (document) => document.entrega !== null && settledDelivery.has(document.entrega.status),
      `delivery of ${id}`,
      30_000,
    );

  const arrivals = async (eNCF: string) =>
    (
      (await world.sandbox.admin('GET', `/arrivals?service=emisorreceptor&encf=${eNCF}`)).body as {
        outcome: string;
      }[]
    ).map((arrival) => arrival.outcome);

  it('delivers a type 31 to the buyer DGII lists, and keeps its signed ARECF as the arecf-xml artefact', async () => {
    const document = await issueAccepted(documentFor('31', { RNCComprador: counterpartRnc }));
    const delivered = await untilDelivered(document.id);
    assert.equal(delivered.entrega?.status, 'delivered', JSON.stringify(delivered.entrega));
    assert.equal(delivered.entrega.canal, 'receptor');
    assert.equal(delivered.entrega.attempts, 1);
    assert.match(delivered.entrega.destino ?? '', /\/testecf\/emisorreceptor\/fe\/recepcion\/api\/ecf$/);
    assert.deepEqual(delivered.entrega.acuseRecibo, {
      estado: '0',
      codigoMotivoNoRecibido: null,
      fechaHoraAcuseRecibo: delivered.entrega.acuseRecibo?.fechaHoraAcuseRecibo,
      version: 1,
    });
    assert.match(delivered.entrega.acuseRecibo.fechaHoraAcuseRecibo ?? '', /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    assert.deepEqual(await arrivals(document.eNCF), ['received']);

    const artefact = await world.call('GET', `/api/v1/documentos/${document.id}/artefactos/arecf-xml`);
    assert.equal(artefact.statusCode, 200);
    const arecf = artefact.body;
    assert.match(arecf, /<ARECF[\s>]/);
    assert.ok(arecf.includes(`<eNCF>${document.eNCF}</eNCF>`));
    assert.ok(arecf.includes(`<RNCComprador>${counterpartRnc}</RNCComprador>`));
    assert.ok(arecf.includes('<Estado>0</Estado>'));
    const summary = delivered.artefacts.find((entry) => entry.type === 'arecf-xml');
    assert.equal(artefact.headers['x-content-sha256'], summary?.sha256);
    if (xmlsec1Available) {
      const verified = verifyWithXmlsec1Embedded(arecf);
      assert.ok(verified.ok, verified.output);
    }

    const timeline = (await world.call('GET', `/api/v1/documentos/${document.id}/cronologia`)).json<{
      data: { events: { type: string; cause: string }[] };
    }>().data.events;
    const delivery = timeline.find((event) => event.type === 'delivery.delivered');
    assert.match(delivery?.cause ?? '', /delivery by receptor, attempt 1: delivered to http/);

    const listed = (await world.call('GET', '/api/v1/documentos?entrega=delivered')).json<{
      data: { id: string }[];
    }>().data;
    assert.ok(listed.some((entry) => entry.id === document.id));
    const pending = (await world.call('GET', '/api/v1/documentos?entrega=pending')).json<{
      data: { id: string }[];
    }>().data;
    assert.ok(!pending.some((entry) => entry.id === document.id));
  });
});
