// Every domain event a full flow records carries the payload its published schema describes (GET
// /api/v1/notificaciones/tipos-evento, SPEC §4.7 and §6.1). Payloads are typed against the catalogue
// (platform/events/domain-events.ts), but TypeScript lets a spread bring properties nobody listed, and a type says
// nothing of formats: this checks what is recorded, with Ajv as the app validates. Documents signed (from JSON and as
// signed XML), queued, accepted, rejected, send_failed and not_found; a reception and a refusal; our commercial
// response, delivered and failed; a buyer's approval of our e-CF; offline blocks reserved, cancelled and expired, with
// the warnings of a small range about to expire; an annulment accepted and one rejected; an expiring certificate; a
// webhook endpoint disabled by a 410.
import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { buildEcf } from '../src/fiscal/build/index.js';
import { buildAcecf } from '../src/fiscal/responses/acecf.js';
import { signCanonicalDocument } from '../src/fiscal/xmldsig/index.js';
import { recordExpiringCertificates } from '../src/modules/webhooks/certificate-warnings.js';
import { systemClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { officialXsdDir } from './support/dgii-files.js';
import { buyerRnc, ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { nextRnc } from './support/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { testSigningKey } from './support/xmldsig-kit.js';
import { until } from './support/until.js';

type Json = Record<string, unknown>;

/** The expiry of the world's ranges (sending-kit.ts), which a document signed elsewhere states. */
const rangeExpiry = `31-12-${String(new Date().getUTCFullYear() + 1)}`;

/** `schema` with every object that does not say otherwise closed: a payload carries nothing its schema does not list. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]));
  return 'properties' in copy && !('additionalProperties' in copy) ? { ...copy, additionalProperties: false } : copy;
}

/** dd-MM-yyyy of the GMT-4 day `days` from now. */
function dgiiDay(days: number): string {
  const day = new Date(Date.now() - 4 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
  return day.split('-').reverse().join('-');
}

describe('domain events: every payload a full flow records matches its published schema', { timeout: 300_000 }, () => {
  let world: SendingWorld;
  let receiver: WebhookReceiver;
  let appUrl: string;
  let hooksKey: string;

  before(async () => {
    receiver = await startWebhookReceiver();
    receiver.answer = (delivery) => (delivery.path === '/gone' ? { status: 410 } : { status: 200, body: 'ok' });
    world = await startSendingWorld({
      env: {
        ECF_XSD_DIR: officialXsdDir,
        RECEIVER_AUTH_MODE: 'optional',
        OUTBOUND_ALLOW_PRIVATE: 'true',
        WEBHOOKS_DISPATCH_INTERVAL_MS: '50',
        SEND_MAX_ATTEMPTS: '2',
        SEND_RETRY_BASE_MS: '50',
        COMMERCIAL_RESPONSE_MAX_ATTEMPTS: '2',
        COMMERCIAL_RESPONSE_RETRY_BASE_MS: '50',
      },
    });
    appUrl = await world.app.app.listen({ port: 0, host: '127.0.0.1' });
    hooksKey = (await world.app.issueKey(world.companyId, ['webhooks:manage'])).apiKey;
  });
  after(async () => {
    await world.close();
    await receiver.close();
  });

  const hooks = (method: 'GET' | 'POST', url: string, payload?: Json) =>
    world.app.app.inject({
      method,
      url,
      headers: { 'x-api-key': hooksKey },
      ...(payload === undefined ? {} : { payload }),
    });
  const fault = async (service: string, mode: string, count: number) => {
    assert.equal((await world.sandbox.admin('POST', '/faults', { service, mode, count })).status, 201);
  };

  async function documents(): Promise<void> {
    // Handed in signed: the first number of 31, before the service numbers any.
    const built = buildEcf(ecfDocuments['31'], {
      eNCF: 'E310000000001',
      fechaVencimientoSecuencia: rangeExpiry,
      fechaHoraFirma: '20-11-2026 09:00:00',
    });
    assert.ok(built.ok);
    const handedIn = await world.call('POST', '/api/v1/documentos/xml-firmado', {
      xml: signCanonicalDocument(built.xml, testSigningKey()),
    });
    assert.equal(handedIn.statusCode, 201, handedIn.body);

    const accepted = await world.create(ecfDocuments['31']);
    await world.send(accepted.id);
    assert.equal((await world.untilSettled(accepted.id)).status, 'accepted');

    await fault('recepcion', 'reject', 1);
    const rejected = await world.create(ecfDocuments['31']);
    await world.send(rejected.id);
    assert.equal((await world.untilSettled(rejected.id)).status, 'rejected');

    // An error of ours on each attempt (the signed XML gone from the archive): send_failed after SEND_MAX_ATTEMPTS.
    const failing = await world.create(ecfDocuments['31']);
    const { db } = world.app.application.database;
    const artefact = await db
      .selectFrom('document_artefacts')
      .select('blob_key')
      .where('document_id', '=', failing.id)
      .where('kind', '=', 'signed-xml')
      .executeTakeFirstOrThrow();
    const { storage } = world.app.config;
    assert.equal(storage.kind, 'fs');
    rmSync(join(storage.root, ...artefact.blob_key.split('/')));
    await world.send(failing.id);
    assert.equal((await world.untilSettled(failing.id)).status, 'send_failed');

    // DGII gives a trackId and loses it: not_found after the polls asked for through the API.
    await fault('recepcion', 'accept_then_lose', 1);
    const lost = await world.create(ecfDocuments['31']);
    await world.send(lost.id);
    await until(
      () => world.get(lost.id),
      (document) => document.status === 'in_process',
      'the trackId',
    );
    await until(
      async () =>
        (await world.call('POST', `/api/v1/documentos/${lost.id}/actualizar-estado`)).json<{
          data: { status: string };
        }>().data.status,
      (status) => status === 'not_found',
      'not_found',
    );

    // The buyer approves the accepted one (ACECF through our receiver).
    const view = (await world.call('GET', `/api/v1/documentos/${accepted.id}`)).json<{
      data: { eNCF: string; fechaEmision: string; montoTotal: string; rncComprador: string | null };
    }>().data;
    const approval = buildAcecf({
      RNCEmisor: issuerRnc,
      eNCF: view.eNCF,
      FechaEmision: view.fechaEmision,
      MontoTotal: view.montoTotal,
      RNCComprador: view.rncComprador ?? buyerRnc,
      Estado: '1',
      FechaHoraAprobacionComercial: '21-11-2026 10:40:00',
    });
    assert.ok(approval.ok, JSON.stringify(approval));
    const buyer = createSelfSignedP12({
      commonName: 'COMPRADOR DE PRUEBA',
      serialNumber: buyerRnc,
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2030-01-01'),
      password: 'clave',
    });
    const signedApproval = signCanonicalDocument(approval.xml, {
      privateKey: createPrivateKey(buyer.privateKeyPem),
      certificatePem: buyer.certificatePem,
    });
    const approved = await world.app.app.inject({
      method: 'POST',
      url: `/testecf/${issuerRnc}/fe/aprobacioncomercial/api/ecf`,
      headers: { 'content-type': 'application/xml' },
      payload: signedApproval,
    });
    assert.equal(approved.statusCode, 200, approved.body);
  }

  async function received(): Promise<void> {
    /** The sandbox's counterpart issues an e-CF to us and sends it to our receiver. */
    const fromCounterpart = async () => {
      const base = `${appUrl}/testecf/${issuerRnc}`;
      const response = await fetch(`${world.sandbox.url}/testecf/emisorreceptor/api/emision/emisioncomprobantes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ rnc: issuerRnc, tipoEncf: 'E31', urlRecepcion: base, urlAutenticacion: base }),
      });
      const sent = (await response.json()) as { encf: string; estado: string; mensajes: string[] };
      assert.equal(sent.estado, 'arecf_valid', sent.mensajes.join(' | '));
      const list = (await world.call('GET', '/api/v1/recibidos?limit=100')).json<{
        data: { id: string; eNCF: string }[];
      }>().data;
      const item = list.find((entry) => entry.eNCF === sent.encf);
      assert.ok(item !== undefined);
      return item.id;
    };
    const settled = (id: string) =>
      until(
        async () =>
          (await world.call('GET', `/api/v1/recibidos/${id}`)).json<{
            data: { commercialResponse: { deliveries: { status: string }[] } | null };
          }>().data.commercialResponse?.deliveries ?? [],
        (deliveries) =>
          deliveries.length === 2 &&
          deliveries.every((delivery) => delivery.status === 'delivered' || delivery.status === 'exhausted'),
        `the deliveries of ${id}`,
      );

    const answered = await fromCounterpart();
    assert.equal(
      (await world.call('POST', `/api/v1/recibidos/${answered}/respuesta-comercial`, { decision: 'approved' }))
        .statusCode,
      202,
    );
    await settled(answered);
    await fault('aprobacioncomercial', 'reject', 2);
    const refused = await fromCounterpart();
    assert.equal(
      (
        await world.call('POST', `/api/v1/recibidos/${refused}/respuesta-comercial`, {
          decision: 'rejected',
          reason: 'Precio distinto al pactado',
        })
      ).statusCode,
      202,
    );
    await settled(refused);

    // An e-CF whose buyer is someone else: not received (ARECF Estado 1).
    const document = structuredClone(ecfDocuments['31']) as { Encabezado: { Comprador: Json } };
    document.Encabezado.Comprador['RNCComprador'] = nextRnc();
    const elsewhere = buildEcf(document, {
      eNCF: 'E310000900001',
      fechaVencimientoSecuencia: rangeExpiry,
      fechaHoraFirma: '20-11-2026 09:00:00',
    });
    assert.ok(elsewhere.ok);
    const answer = await world.app.app.inject({
      method: 'POST',
      url: `/testecf/${issuerRnc}/fe/recepcion/api/ecf`,
      headers: { 'content-type': 'application/xml' },
      payload: signCanonicalDocument(elsewhere.xml, testSigningKey()),
    });
    assert.equal(answer.statusCode, 200, answer.body);
  }

  async function sequences(): Promise<void> {
    const annul = async (ranges: Json[]) => {
      const response = await world.call('POST', '/api/v1/secuencias/anulaciones', { ranges });
      assert.equal(response.statusCode, 202, response.body);
      const { id } = response.json<{ data: { id: string } }>().data;
      return until(
        async () =>
          (await world.call('GET', `/api/v1/secuencias/anulaciones/${id}`)).json<{ data: { status: string } }>().data
            .status,
        (status) => status !== 'pending' && status !== 'sending',
        `annulment ${id}`,
      );
    };
    assert.equal(await annul([{ ecfType: '41', from: 'E410000000001', to: 'E410000100000' }]), 'accepted');
    await fault('anulacionrangos', 'reject', 1);
    assert.equal(await annul([{ ecfType: '43', from: 'E430000000001', to: 'E430000100000' }]), 'rejected');

    // Another company: a range of four numbers expiring in ten days, all of it reserved offline; a certificate
    // expiring in ten days too.
    const rnc = nextRnc();
    const companyId = await world.app.provisionCompany({ rnc });
    const certificate = createSelfSignedP12({
      commonName: 'EMISOR',
      serialNumber: rnc,
      notBefore: new Date('2026-01-01'),
      notAfter: new Date(Date.now() + 10 * 86_400_000),
      password: 'clave',
    });
    assert.equal(
      (
        await world.app.sendEvent('certificate.installed', {
          companyId,
          p12Base64: certificate.p12.toString('base64'),
          password: 'clave',
        })
      ).statusCode,
      200,
    );
    const { apiKey } = await world.app.issueKey(companyId, ['sequences:manage', 'sequences:read']);
    const call = (url: string, payload?: Json) =>
      world.app.app.inject({
        method: payload === undefined ? 'GET' : 'POST',
        url,
        headers: { 'x-api-key': apiKey },
        ...(payload === undefined ? {} : { payload }),
      });
    assert.equal(
      (
        await call('/api/v1/secuencias/rangos', {
          ecfType: '31',
          from: 'E310000000001',
          to: 'E310000000004',
          expiresOn: dgiiDay(10),
        })
      ).statusCode,
      201,
    );
    const lapsing = await call('/api/v1/secuencias/asignaciones', {
      ecfType: '31',
      deviceId: 'caja-01',
      count: 1,
      expiresAt: new Date(Date.now() + 1_000).toISOString(),
    });
    assert.equal(lapsing.statusCode, 201, lapsing.body);
    const rest = await call('/api/v1/secuencias/asignaciones', { ecfType: '31', deviceId: 'caja-02', count: 3 });
    assert.equal(rest.statusCode, 201, rest.body);
    assert.equal(
      (await call(`/api/v1/secuencias/asignaciones/${rest.json<{ data: { id: string } }>().data.id}/cancelar`, {}))
        .statusCode,
      200,
    );
    await sleep(1_100);
    // Read after its expiry, the first block ends.
    assert.equal((await call('/api/v1/secuencias/asignaciones')).statusCode, 200);
    // The daily job.
    assert.equal(
      await recordExpiringCertificates(world.app.application.database.db, systemClock, world.app.config.fiscalEnv),
      1,
    );
  }

  async function webhooks(): Promise<void> {
    const created = await hooks('POST', '/api/v1/notificaciones', { url: `${receiver.url}/gone` });
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json<{ data: { id: string } }>().data;
    assert.equal((await hooks('POST', `/api/v1/notificaciones/${id}/prueba`)).statusCode, 202);
    await until(
      async () => (await hooks('GET', `/api/v1/notificaciones/${id}`)).json<{ data: { state: string } }>().data.state,
      (state) => state === 'disabled',
      'the endpoint answering 410',
    );
  }

  it('records only payloads its published schemas accept, and lists nothing more than they do', async () => {
    await documents();
    await received();
    await sequences();
    await webhooks();

    const published = (await hooks('GET', '/api/v1/notificaciones/tipos-evento')).json<{
      data: { type: string; dataSchema: Json }[];
    }>().data;
    // ajv is CommonJS: its class (and ajv-formats' plugin) is the default export at run time, `.default` in its declared types.
    const ajv = new Ajv2020.default({ strict: true, allErrors: true });
    addFormats.default(ajv);
    const validators = new Map<string, { published: ValidateFunction; closed: ValidateFunction }>(
      published.map(({ type, dataSchema }) => [
        type,
        { published: ajv.compile(dataSchema), closed: ajv.compile(closed(dataSchema) as Json) },
      ]),
    );

    const events = await world.app.application.database.db
      .selectFrom('domain_events')
      .select(['id', 'type', 'payload'])
      .orderBy('occurred_at')
      .orderBy('id')
      .execute();
    const failures: { id: string; type: string; payload: unknown; errors: unknown }[] = [];
    for (const event of events) {
      const validate = validators.get(event.type);
      if (validate === undefined) failures.push({ ...event, errors: 'not in the catalogue' });
      else if (!validate.published(event.payload)) failures.push({ ...event, errors: validate.published.errors });
      else if (!validate.closed(event.payload))
        failures.push({ ...event, errors: ['a property the schema does not list', ...(validate.closed.errors ?? [])] });
    }
    assert.deepEqual(failures, []);
    assert.deepEqual([...new Set(events.map((event) => event.type))].sort(), [
      'allocation.cancelled',
      'allocation.expired',
      'allocation.reserved',
      'annulment.accepted',
      'annulment.rejected',
      'certificate.expiring',
      'document.accepted',
      'document.commercial_approval_received',
      'document.not_found',
      'document.queued',
      'document.rejected',
      'document.send_failed',
      'document.signed',
      'received_document.commercial_response_created',
      'received_document.commercial_response_delivered',
      'received_document.commercial_response_failed',
      'received_document.not_received',
      'received_document.received',
      'sequence.exhausted',
      'sequence.expiring',
      'sequence.low_stock',
      'webhook.endpoint_disabled',
    ]);
    // Both ways a document is signed, with and without its origin.
    assert.deepEqual(
      new Set(
        events
          .filter((event) => event.type === 'document.signed')
          .map((event) => (event.payload as { origin?: string }).origin ?? 'json'),
      ),
      new Set(['json', 'signed_xml']),
    );
  });
});
