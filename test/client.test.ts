// The quick start through the generated client (sdk/), over real HTTP against the real app and the DGII sandbox:
// create an invoice (with an Idempotency-Key, replayed), send it, read the verdict until accepted, download the
// signed XML (verified by xmlsec1) and the printed data; refusals arrive as EcfProblem; listAll visits every
// document once across pages; a real webhook delivery verifies with the client's verifier.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  createEcfClient,
  EcfProblem,
  listAll,
  ok,
  verifyWebhook,
  WebhookVerificationError,
  type components,
  type EcfClient,
  type paths,
} from '../sdk/src/index.js';
import { scopes } from '../src/platform/http/scopes.js';
import { buyerRnc, fictitiousRnc, issuerRnc } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { verifyWithXmlsec1Embedded } from './support/xmldsig-kit.js';

type CreateBody = paths['/api/v1/documentos']['post']['requestBody']['content']['application/json'];
type DocumentView = components['schemas']['DocumentView'];

/** A complete type-31 invoice: 2 × 500.00 at 18 % ITBIS and one exempt line of 250.00, paid in cash. */
function invoice(rncComprador: string = buyerRnc): CreateBody {
  return {
    Encabezado: {
      Version: '1.0',
      IdDoc: {
        TipoeCF: '31',
        IndicadorMontoGravado: 0,
        TipoIngresos: '01',
        TipoPago: 1,
        TablaFormasPago: { FormaDePago: [{ FormaPago: 1, MontoPago: '1430.00' }] },
      },
      Emisor: {
        RNCEmisor: issuerRnc,
        RazonSocialEmisor: 'Ferretería Ñoño & Asociados, S.R.L.',
        DireccionEmisor: 'Av. 27 de Febrero #123, Ensanche Piantini',
        Municipio: '010101',
        Provincia: '010000',
        FechaEmision: '15-11-2026',
      },
      Comprador: {
        RNCComprador: rncComprador,
        RazonSocialComprador: 'Distribuidora Peña & Hijos',
        DireccionComprador: 'Calle El Sol #45, Santiago',
      },
      Totales: {
        MontoGravadoTotal: '1000.00',
        MontoGravadoI1: '1000.00',
        MontoExento: '250.00',
        ITBIS1: '18',
        TotalITBIS: '180.00',
        TotalITBIS1: '180.00',
        MontoTotal: '1430.00',
      },
    },
    DetallesItems: {
      Item: [
        {
          NumeroLinea: 1,
          IndicadorFacturacion: 1,
          NombreItem: 'Martillo de carpintero 16 oz',
          IndicadorBienoServicio: 1,
          CantidadItem: '2',
          UnidadMedida: 43,
          PrecioUnitarioItem: '500.00',
          MontoItem: '1000.00',
        },
        {
          NumeroLinea: 2,
          IndicadorFacturacion: 4,
          NombreItem: 'Libro técnico (exento)',
          IndicadorBienoServicio: 1,
          CantidadItem: '1',
          PrecioUnitarioItem: '250.00',
          MontoItem: '250.00',
        },
      ],
    },
  };
}

const finalStatuses: ReadonlySet<string> = new Set(['accepted', 'accepted_conditional', 'rejected']);

describe('the generated client against the real app (sandbox)', { timeout: 300_000 }, () => {
  let world: SendingWorld;
  let receiver: WebhookReceiver;
  let baseUrl: string;
  let apiKey: string;
  let ecf: EcfClient;
  /** The Idempotency-Key of each request the client sent, by method and path. */
  const sentKeys: { route: string; key: string | null }[] = [];

  before(async () => {
    receiver = await startWebhookReceiver();
    world = await startSendingWorld({
      env: { OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOKS_DISPATCH_INTERVAL_MS: '50' },
    });
    baseUrl = await world.app.app.listen({ port: 0, host: '127.0.0.1' });
    apiKey = (await world.app.issueKey(world.companyId, [...scopes])).apiKey;
    ecf = createEcfClient({
      baseUrl,
      apiKey,
      fetch: (request) => {
        sentKeys.push({
          route: `${request.method} ${new URL(request.url).pathname}`,
          key: request.headers.get('idempotency-key'),
        });
        return fetch(request);
      },
    });
  });
  after(async () => {
    await world.close();
    await receiver.close();
  });

  async function untilFinal(id: string): Promise<DocumentView> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { data } = await ok(ecf.GET('/api/v1/documentos/{id}', { params: { path: { id } } }));
      if (finalStatuses.has(data.status)) return data;
      if (Date.now() > deadline) throw new Error(`document ${id} still ${data.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  let accepted: DocumentView;

  it('creates an invoice with a fresh Idempotency-Key, and a replay of its key gives the same document', async () => {
    const { data: created } = await ok(ecf.POST('/api/v1/documentos', { body: invoice() }));
    assert.equal(created.status, 'signed');
    assert.equal(created.ecfType, '31');
    assert.match(created.eNCF, /^E31\d{10}$/);
    assert.equal(created.montoTotal, '1430.00');
    assert.equal(sentKeys.length, 1);
    const [first] = sentKeys;
    assert.ok(first !== undefined);
    assert.equal(first.route, 'POST /api/v1/documentos');
    const key = first.key ?? '';
    assert.match(key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const replay = await ecf.POST('/api/v1/documentos', {
      body: invoice(),
      params: { header: { 'idempotency-key': key } },
    });
    assert.equal(replay.response.status, 201);
    assert.equal(replay.response.headers.get('idempotency-replayed'), 'true');
    assert.equal(sentKeys.at(-1)?.key, key, 'the key given is sent as given');
    assert.ok(replay.data !== undefined);
    assert.deepEqual([replay.data.data.id, replay.data.data.eNCF], [created.id, created.eNCF]);

    // Without a key of its own, each creation is a new request: a new document, a new number.
    const { data: another } = await ok(ecf.POST('/api/v1/documentos', { body: invoice() }));
    assert.notEqual(another.id, created.id);
    assert.notEqual(sentKeys.at(-1)?.key, key);
    // Reads and other POSTs carry no key.
    await ok(ecf.GET('/api/v1/documentos/{id}', { params: { path: { id: created.id } } }));
    assert.equal(sentKeys.at(-1)?.key, null);

    const { data: answer } = await ok(
      ecf.POST('/api/v1/documentos/{id}/enviar', { params: { path: { id: created.id } } }),
    );
    assert.equal(sentKeys.at(-1)?.key, null);
    assert.deepEqual([answer.id, answer.status, answer.changed], [created.id, 'queued', true]);
    accepted = await untilFinal(created.id);
    assert.equal(accepted.status, 'accepted');
    assert.equal(accepted.dgii?.estado, 'Aceptado');
    assert.match(accepted.dgii.trackId ?? '', /^[0-9a-f-]{36}$/);
  });

  it('downloads the signed XML, which xmlsec1 verifies, and the printed data of the accepted invoice', async () => {
    const signed = await ok(
      ecf.GET('/api/v1/documentos/{id}/artefactos/{type}', {
        params: { path: { id: accepted.id, type: 'signed-xml' } },
        parseAs: 'text',
      }),
    );
    assert.match(signed, /^<\?xml[^>]*\?><ECF>/);
    assert.match(signed, new RegExp(`<eNCF>${accepted.eNCF}</eNCF>`));
    assert.match(signed, new RegExp(`<RNCComprador>${buyerRnc}</RNCComprador>`));
    const verified = verifyWithXmlsec1Embedded(signed);
    assert.ok(verified.ok, verified.output);
    const signatureValue = /<SignatureValue>([^<]+)<\/SignatureValue>/.exec(signed)?.[1] ?? '';
    assert.equal(accepted.securityCode, signatureValue.slice(0, 6));
    const raw = await ecf.GET('/api/v1/documentos/{id}/artefactos/{type}', {
      params: { path: { id: accepted.id, type: 'signed-xml' } },
      parseAs: 'arrayBuffer',
    });
    assert.equal(
      raw.response.headers.get('x-content-sha256'),
      createHash('sha256')
        .update(Buffer.from(raw.data ?? new ArrayBuffer(0)))
        .digest('hex'),
    );

    const { data: printed } = await ok(
      ecf.GET('/api/v1/documentos/{id}/impresion', { params: { path: { id: accepted.id } } }),
    );
    assert.equal(printed.eNCF, accepted.eNCF);
    assert.equal(printed.status, 'accepted');
    assert.equal(printed.securityCode, accepted.securityCode);
    assert.equal(printed.issuer.rnc, issuerRnc);
    assert.equal(printed.buyer?.rnc, buyerRnc);
    assert.equal(printed.totals.MontoTotal, '1430.00');
    assert.deepEqual(
      printed.lines.map((line) => [line.name, line.amount]),
      [
        ['Martillo de carpintero 16 oz', '1000.00'],
        ['Libro técnico (exento)', '250.00'],
      ],
    );
    assert.match(printed.qr.url, new RegExp(`ENCF=${accepted.eNCF}`));
  });

  it('throws refusals as EcfProblem with their code, status, pointers and correlation id', async () => {
    const badRnc = `${buyerRnc.slice(0, 8)}${String((Number(buyerRnc[8]) + 1) % 10)}`;
    assert.notEqual(badRnc, fictitiousRnc(buyerRnc.slice(0, 8)));
    const refused = await ok(ecf.POST('/api/v1/documentos', { body: invoice(badRnc) })).then(
      () => assert.fail('an RNC with a wrong check digit was accepted'),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof EcfProblem, String(refused));
    assert.equal(refused.status, 422);
    assert.equal(refused.code, 'document_invalid');
    assert.match(refused.correlationId, /\S/);
    assert.ok(
      refused.errors.some(
        (error) =>
          error.pointer === '/Encabezado/Comprador/RNCComprador' &&
          error.in === 'body' &&
          error.code === 'taxpayer_id_check_digit',
      ),
      JSON.stringify(refused.errors),
    );

    const missing = await ok(ecf.GET('/api/v1/documentos/{id}', { params: { path: { id: 'doc_missing' } } })).catch(
      (error: unknown) => error,
    );
    assert.ok(missing instanceof EcfProblem);
    assert.deepEqual([missing.status, missing.code], [404, 'document_not_found']);

    const stranger = createEcfClient({ baseUrl, apiKey: `${apiKey.slice(0, -4)}xxxx` });
    const unknownKey = await ok(stranger.GET('/api/v1/empresa')).catch((error: unknown) => error);
    assert.ok(unknownKey instanceof EcfProblem);
    assert.equal(unknownKey.status, 401);
    assert.match(unknownKey.code, /^api_key_/);

    // An answer that is not problem+json (a proxy's page, say) still throws, with the client's own code.
    const proxied = createEcfClient({
      baseUrl,
      apiKey,
      fetch: () => Promise.resolve(new Response('<html>Bad gateway</html>', { status: 502 })),
    });
    const gateway = await ok(proxied.GET('/api/v1/empresa')).catch((error: unknown) => error);
    assert.ok(gateway instanceof EcfProblem);
    assert.deepEqual(
      [gateway.status, gateway.code, gateway.detail],
      [502, 'unexpected_response', '<html>Bad gateway</html>'],
    );
  });

  it('visits every document of a list of several pages exactly once with listAll', async () => {
    for (let i = 0; i < 4; i++) await ok(ecf.POST('/api/v1/documentos', { body: invoice() }));
    const { data: everything } = await ok(ecf.GET('/api/v1/documentos', { params: { query: { limit: 200 } } }));
    assert.ok(everything.length >= 6, String(everything.length));
    const cursors: (string | undefined)[] = [];
    const visited: string[] = [];
    for await (const document of listAll((cursor) => {
      cursors.push(cursor);
      return ecf.GET('/api/v1/documentos', { params: { query: { limit: 2, cursor } } });
    }))
      visited.push(document.id);
    // The last page says there is none after it (nextCursor null): no empty page is asked for.
    assert.equal(cursors.length, Math.ceil(everything.length / 2));
    assert.equal(cursors[0], undefined);
    assert.equal(new Set(cursors).size, cursors.length, 'a page was asked for twice');
    assert.deepEqual(
      visited,
      everything.map((document) => document.id),
    );
  });

  it('verifies real deliveries from the app with verifyWebhook, across a rotation, and refuses them tampered', async () => {
    const { data: endpoint } = await ok(
      ecf.POST('/api/v1/notificaciones', { body: { url: `${receiver.url}/client`, events: ['document.accepted'] } }),
    );
    assert.match(endpoint.secret, /^whsec_/);
    const { data: created } = await ok(ecf.POST('/api/v1/documentos', { body: invoice() }));
    await ok(ecf.POST('/api/v1/documentos/{id}/enviar', { params: { path: { id: created.id } } }));
    assert.equal((await untilFinal(created.id)).status, 'accepted');
    const [delivery] = await receiver.waitFor(1, (arrived) => arrived.path === '/client');
    assert.ok(delivery !== undefined);

    const event = await verifyWebhook({ secret: endpoint.secret, headers: delivery.headers, body: delivery.body });
    assert.equal(event.type, 'document.accepted');
    assert.deepEqual(event.company, { id: world.companyId, rnc: issuerRnc });
    assert.equal((event.data as { documentId: string }).documentId, created.id);
    // The independent oracle agrees.
    assert.equal(receiver.verify(delivery, endpoint.secret), undefined);

    const refusals = await Promise.all(
      [
        { secret: endpoint.secret, headers: delivery.headers, body: delivery.body.replace('accepted', 'rejected') },
        { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, headers: delivery.headers, body: delivery.body },
      ].map((input) => verifyWebhook(input).catch((error: unknown) => error)),
    );
    for (const refusal of refusals) {
      assert.ok(refusal instanceof WebhookVerificationError, String(refusal));
      assert.equal(refusal.reason, 'signature_invalid');
    }

    // After a rotation, deliveries carry two signatures: the old secret and the new one both verify.
    const { data: rotated } = await ok(
      ecf.POST('/api/v1/notificaciones/{id}/rotar-secreto', { params: { path: { id: endpoint.id } } }),
    );
    assert.notEqual(rotated.secret, endpoint.secret);
    const { data: test } = await ok(
      ecf.POST('/api/v1/notificaciones/{id}/prueba', { params: { path: { id: endpoint.id } } }),
    );
    const [probe] = await receiver.waitFor(1, (arrived) => arrived.headers['webhook-id'] === test.deliveryId);
    assert.ok(probe !== undefined);
    assert.equal(String(probe.headers['webhook-signature']).split(' ').length, 2);
    for (const secret of [rotated.secret, endpoint.secret]) {
      const verified = await verifyWebhook({ secret, headers: probe.headers, body: probe.body });
      assert.equal(verified.type, 'webhook.test');
    }
  });
});
