// Every accepted e-CF reaches its buyer's receiver (issue 42; Informe Técnico §8 steps 3-4), through HTTP against a
// running app with a worker and the DGII sandbox, whose counterpart taxpayer plays the buyer: its directory lists it,
// its receiver answers signed ARECFs and acts out the faults the tests aim at it.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { counterpartRnc } from '../src/sandbox/counterpart/identity.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import {
  issueAccepted as issueAcceptedIn,
  readDelivered,
  untilDeliverySettled,
  type DeliveredDocument,
} from './support/delivery-kit.js';
import { until } from './support/until.js';
import { requireTool } from './support/tools.js';
import { verifyWithXmlsec1Embedded } from './support/xmldsig-kit.js';

type Json = Record<string, unknown>;

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

  const read = (id: string) => readDelivered(world, id);

  const issueAccepted = (body: Json) => issueAcceptedIn(world, body);
  const untilDelivered = (id: string) => untilDeliverySettled(world, id);

  const arrivals = async (eNCF: string) =>
    (
      (await world.sandbox.admin('GET', `/arrivals?service=emisorreceptor&encf=${eNCF}`)).body as {
        outcome: string;
      }[]
    ).map((arrival) => arrival.outcome);

  it('delivers a type 31 to the buyer DGII lists, and keeps its signed ARECF as the arecf-xml artefact', async (t) => {
    const document = await issueAccepted(documentFor('31', { RNCComprador: counterpartRnc }));
    const delivered = await untilDelivered(document.id);
    assert.equal(delivered.entrega.status, 'delivered', JSON.stringify(delivered.entrega));
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
    if (requireTool(t, 'xmlsec1')) {
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

  const fault = async (mode: string, extra: Json = {}) => {
    const set = await world.sandbox.admin('POST', '/faults', { service: 'emisorreceptor.recepcion', mode, ...extra });
    assert.equal(set.status, 201, JSON.stringify(set.body));
  };

  const timelineOf = async (id: string) =>
    (await world.call('GET', `/api/v1/documentos/${id}/cronologia`)).json<{
      data: { events: { at: string; type: string; cause: string }[] };
    }>().data.events;

  for (const motivo of ['1', '2', '4'] as const) {
    it(`records "not received" with motivo ${motivo} from the receiver's signed ARECF, and keeps that ARECF`, async () => {
      await fault(`not_received_${motivo}`, { count: 1 });
      const document = await issueAccepted(documentFor('31', { RNCComprador: counterpartRnc }));
      const settled = await untilDelivered(document.id);
      assert.equal(settled.entrega.status, 'not_received', JSON.stringify(settled.entrega));
      assert.equal(settled.entrega.attempts, 1, 'a refusal is an answer: not retried');
      assert.equal(settled.entrega.acuseRecibo?.estado, '1');
      assert.equal(settled.entrega.acuseRecibo.codigoMotivoNoRecibido, motivo);
      assert.match(settled.entrega.reason ?? '', new RegExp(`motivo ${motivo}`));
      const arecf = (await world.call('GET', `/api/v1/documentos/${document.id}/artefactos/arecf-xml`)).body;
      assert.ok(arecf.includes(`<CodigoMotivoNoRecibido>${motivo}</CodigoMotivoNoRecibido>`));
      assert.deepEqual(await arrivals(document.eNCF), [`fault:not_received_${motivo}`]);
    });
  }

  it('takes a forced duplicate (motivo 3) as delivered, with the reason written down', async () => {
    await fault('not_received_3', { count: 1 });
    const document = await issueAccepted(documentFor('31', { RNCComprador: counterpartRnc }));
    const settled = await untilDelivered(document.id);
    assert.equal(settled.entrega.status, 'delivered');
    assert.equal(settled.entrega.acuseRecibo?.codigoMotivoNoRecibido, '3');
    assert.match(settled.entrega.reason ?? '', /Envío duplicado/);
  });

  it('waits for a slow receiver, and retries 5xx answers until it receives', async () => {
    await fault('slow', { count: 1, delayMs: 400 });
    const slow = await issueAccepted(documentFor('31', { RNCComprador: counterpartRnc }));
    const slowDelivered = await untilDelivered(slow.id);
    assert.equal(slowDelivered.entrega.status, 'delivered');
    assert.equal(slowDelivered.entrega.attempts, 1);

    await fault('http500', { count: 3 });
    const flaky = await issueAccepted(documentFor('31', { RNCComprador: counterpartRnc }));
    const delivered = await untilDelivered(flaky.id);
    assert.equal(delivered.entrega.status, 'delivered', JSON.stringify(delivered.entrega));
    assert.equal(delivered.entrega.attempts, 4);
    assert.deepEqual(await arrivals(flaky.eNCF), ['fault:http500', 'fault:http500', 'fault:http500', 'received']);
    const failures = (await timelineOf(flaky.id)).filter((event) => event.type === 'delivery.attempt_failed');
    assert.equal(failures.length, 3);
    assert.match(failures[0]?.cause ?? '', /attempt 1 of 6 failed to http.*HTTP 500/);
  });

  it("waits for the receiver's Retry-After before trying again, longer than its own backoff", async () => {
    await fault('http503', { count: 1, delayMs: 2_000 });
    const document = await issueAccepted(documentFor('31', { RNCComprador: counterpartRnc }));
    const delivered = await untilDelivered(document.id);
    assert.equal(delivered.entrega.status, 'delivered', JSON.stringify(delivered.entrega));
    assert.equal(delivered.entrega.attempts, 2);
    assert.deepEqual(await arrivals(document.eNCF), ['fault:http503', 'received']);
    const timeline = await timelineOf(document.id);
    const failed = timeline.find((event) => event.type === 'delivery.attempt_failed');
    const done = timeline.find((event) => event.type === 'delivery.delivered');
    assert.match(failed?.cause ?? '', /attempt 1 of 6 failed to http.*HTTP 503/);
    // The backoff here is 50 ms; the receiver asked for 2 s, and the next attempt came no sooner.
    const next = /next attempt at (\S+)$/.exec(failed?.cause ?? '')?.[1];
    const failedAt = Date.parse(failed?.at ?? '');
    assert.ok(
      next !== undefined && Date.parse(next) - failedAt >= 1_900,
      `${String(next)} after ${String(failed?.at)}`,
    );
    assert.ok(Date.parse(done?.at ?? '') - failedAt >= 1_900, `delivered at ${String(done?.at)}`);
  });

  for (const mode of ['arecf_unsigned', 'arecf_foreign'] as const) {
    it(`records an answer that is not a valid ARECF (${mode}) and closes the delivery on the duplicate that follows`, async () => {
      await fault(mode, { count: 1 });
      const document = await issueAccepted(documentFor('31', { RNCComprador: counterpartRnc }));
      const settled = await untilDelivered(document.id);
      const failed = (await timelineOf(document.id)).find((event) => event.type === 'delivery.attempt_failed');
      assert.match(
        failed?.cause ?? '',
        mode === 'arecf_unsigned'
          ? /not a valid ARECF: the ARECF's signature does not verify/
          : /not a valid ARECF: the ARECF is about another e-CF: eNCF/,
      );
      // The receiver kept the e-CF the first time: the second attempt is its duplicate, which says it has it.
      assert.equal(settled.entrega.status, 'delivered');
      assert.equal(settled.entrega.attempts, 2);
      assert.equal(settled.entrega.acuseRecibo?.codigoMotivoNoRecibido, '3');
      assert.deepEqual(await arrivals(document.eNCF), [`fault:${mode}`, 'not_received:duplicate']);
    });
  }

  it('never sends types 32, 41, 43, 45, 46 and 47 to a receiver, even when their buyer is listed', async () => {
    for (const type of ['32', '41', '43', '45', '46', '47'] as const) {
      const body = documentFor(type);
      const comprador = (body['Encabezado'] as Json)['Comprador'] as Json | undefined;
      // Where the type names its buyer by RNC, the counterpart (listed in the directory) is that buyer.
      if (comprador !== undefined && comprador['IdentificadorExtranjero'] === undefined && type !== '32')
        comprador['RNCComprador'] = counterpartRnc;
      const document = await issueAccepted(body);
      const settled = await untilDelivered(document.id);
      assert.notEqual(settled.entrega.canal, 'receptor', `type ${type}`);
      assert.equal(settled.entrega.status, 'skipped', `type ${type}: ${JSON.stringify(settled.entrega)}`);
      assert.deepEqual(await arrivals(document.eNCF), [], `type ${type}`);
    }
  });

  it('never delivers a rejected e-CF, nor a replacement of an NCF issued in contingency', async () => {
    const setReject = await world.sandbox.admin('POST', '/faults', { service: 'recepcion', mode: 'reject', count: 1 });
    assert.equal(setReject.status, 201);
    const created = await world.create(documentFor('31', { RNCComprador: counterpartRnc }));
    await world.send(created.id);
    const rejected = await world.untilSettled(created.id);
    assert.equal(rejected.status, 'rejected');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await read(created.id)).entrega, null);
    const refused = await world.call('POST', `/api/v1/documentos/${created.id}/entregar`);
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json<{ code: string }>().code, 'document_not_deliverable');
    assert.deepEqual(await arrivals(created.eNCF), []);

    const replacement = documentFor('31', { RNCComprador: counterpartRnc });
    replacement['InformacionReferencia'] = {
      NCFModificado: 'B0100000005',
      FechaNCFModificado: '01-11-2026',
      CodigoModificacion: 4,
    };
    const document = await issueAccepted(replacement);
    const settled = await untilDelivered(document.id);
    assert.equal(settled.entrega.status, 'skipped');
    assert.match(settled.entrega.reason ?? '', /contingency \(CodigoModificacion 4\) goes to DGII only/);
    assert.deepEqual(await arrivals(document.eNCF), []);
    const again = await world.call('POST', `/api/v1/documentos/${document.id}/entregar`);
    assert.equal(again.statusCode, 409);
  });

  it('delivers again on entregar after a receiver said "not received", counting attempts from zero', async () => {
    await fault('not_received_2', { count: 1 });
    const document = await issueAccepted(documentFor('31', { RNCComprador: counterpartRnc }));
    assert.equal((await untilDelivered(document.id)).entrega.status, 'not_received');
    const asked = await world.call('POST', `/api/v1/documentos/${document.id}/entregar`);
    assert.equal(asked.statusCode, 202, asked.body);
    assert.equal(asked.json<{ data: DeliveredDocument }>().data.entrega?.status, 'pending');
    const delivered = await until(
      () => read(document.id),
      (current) => current.entrega?.status === 'delivered',
      'second delivery',
      30_000,
    );
    assert.equal(delivered.entrega?.attempts, 1);
    assert.equal(delivered.entrega.acuseRecibo?.version, 2, 'the second ARECF is the next version');
    const first = await world.call('GET', `/api/v1/documentos/${document.id}/artefactos/arecf-xml?version=1`);
    assert.ok(first.body.includes('<Estado>1</Estado>'));
  });
});
