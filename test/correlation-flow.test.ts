// One correlation id from request to DGII (SPEC §9.5; DESIGN §4): an invoice created and sent with
// `X-Correlation-ID: abc-123` goes to the DGII sandbox, is accepted, reaches its buyer (the sandbox's counterpart
// receiver) and its webhooks reach a local receiver; every log line, timeline entry and webhook event of that work
// carries `abc-123`. Read through HTTP and the app's own log stream, on one app with a worker and a scheduler.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { counterpartRnc } from '../src/sandbox/counterpart/identity.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { LogCapture } from './support/logged-test-app.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { until } from './support/until.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const correlationId = 'abc-123';
/** The id of the test's own reads while it waits: their lines are theirs, not the invoice's. */
const reader = 'test-reader';
const events = ['document.signed', 'document.queued', 'document.accepted', 'document.delivered'];

describe('one correlation id from request to DGII', { timeout: 300_000 }, () => {
  let world: SendingWorld;
  let receiver: WebhookReceiver;
  const logs = new LogCapture();
  let apiKey: string;

  before(async () => {
    receiver = await startWebhookReceiver();
    world = await startSendingWorld({
      env: { OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOKS_DISPATCH_INTERVAL_MS: '50', LOG_LEVEL: 'debug' },
      logDestination: logs,
    });
    apiKey = (
      await world.app.issueKey(world.companyId, [
        'documents:create',
        'documents:read',
        'documents:send',
        'webhooks:manage',
      ])
    ).apiKey;
  });
  after(async () => {
    await world.close();
    await receiver.close();
  });

  const call = (method: 'GET' | 'POST', url: string, id: string, payload?: object) =>
    world.app.app.inject({
      method,
      url,
      headers: { 'x-api-key': apiKey, 'x-correlation-id': id },
      ...(payload === undefined ? {} : { payload }),
    });

  it('carries abc-123 on every log line, timeline entry and webhook event of the invoice’s work', async () => {
    const endpoint = await call('POST', '/api/v1/notificaciones', 'test-setup', { url: `${receiver.url}/erp`, events });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    receiver.secretFor.set('/erp', endpoint.json<{ data: { secret: string } }>().data.secret);

    const from = logs.lines.length;
    const body = structuredClone(ecfDocuments['31']) as { Encabezado: { Comprador: Record<string, unknown> } };
    body.Encabezado.Comprador = { ...body.Encabezado.Comprador, RNCComprador: counterpartRnc };
    const created = await call('POST', '/api/v1/documentos', correlationId, body);
    assert.equal(created.statusCode, 201, created.body);
    const { id, eNCF } = created.json<{ data: { id: string; eNCF: string } }>().data;
    const sent = await call('POST', `/api/v1/documentos/${id}/enviar`, correlationId);
    assert.equal(sent.statusCode, 202, sent.body);
    assert.equal(sent.json<{ meta: { correlationId: string } }>().meta.correlationId, correlationId);

    // Accepted by DGII, delivered to the buyer, and each webhook delivered (recorded as such).
    const document = await until(
      async () =>
        (await call('GET', `/api/v1/documentos/${id}`, reader)).json<{
          data: { status: string; entrega: { status: string } | null };
        }>().data,
      (seen) => seen.entrega?.status === 'delivered',
      `delivery of ${id}`,
      60_000,
    );
    assert.equal(document.status, 'accepted');
    const deliveries = await until(
      async () =>
        (await call('GET', '/api/v1/notificaciones/entregas?limit=200', reader)).json<{
          data: { status: string; eventType: string }[];
        }>().data,
      (seen) => seen.length === events.length && seen.every((delivery) => delivery.status === 'succeeded'),
      'webhook deliveries succeeded',
      60_000,
    );
    assert.deepEqual(deliveries.map((delivery) => delivery.eventType).sort(), [...events].sort());

    // The timeline: every entry, from the creation to the delivery to the buyer.
    const timeline = (await call('GET', `/api/v1/documentos/${id}/cronologia`, reader)).json<{
      data: { events: { type: string; correlationId: string | null }[] };
    }>().data.events;
    assert.deepEqual(
      timeline.map((entry) => entry.type),
      ['created', 'queued', 'dgii.sending', 'dgii.received', 'dgii.accepted', 'delivery.delivered'],
    );
    assert.deepEqual(
      timeline.filter((entry) => entry.correlationId !== correlationId),
      [],
      'timeline entries without abc-123',
    );

    // The webhook events, as the receiver got them (signed: the id is part of what the signature covers).
    const received = receiver.deliveries.map(
      (delivery) => JSON.parse(delivery.body) as { type: string; correlationId: string; data: { documentId: string } },
    );
    assert.deepEqual(received.map((event) => event.type).sort(), [...events].sort());
    for (const event of received) {
      assert.equal(event.data.documentId, id);
      assert.equal(event.correlationId, correlationId, event.type);
    }
    assert.deepEqual(
      receiver.deliveries.filter((delivery) => delivery.standardError !== undefined),
      [],
    );

    // The log: every line written since the invoice was created is the invoice's (abc-123) or one of this test's
    // reads; a schedule's job may log meanwhile, under its own id, about something else.
    const lines = logs.entries().slice(from);
    const text = (line: Record<string, unknown>) => JSON.stringify(line);
    const strays = lines.filter(
      (line) =>
        line.correlationId !== correlationId &&
        line.correlationId !== reader &&
        !(String(line.correlationId).startsWith('schedule:') && !text(line).includes(id) && !text(line).includes(eNCF)),
    );
    assert.deepEqual(strays, [], 'lines of the invoice’s work without abc-123');
    // And the work is in it, step by step: the requests, each queued item settled, DGII's answers to each call.
    const invoice = lines.filter((line) => line.correlationId === correlationId);
    const messages = invoice.map((line) => String(line.msg));
    assert.deepEqual(
      invoice.filter((line) => line.msg === 'incoming request').map((line) => (line.req as { url: string }).url),
      ['/api/v1/documentos', `/api/v1/documentos/${id}/enviar`],
    );
    for (const settled of ['document.send: done', 'document.poll: done', 'buyer.delivery: done'])
      assert.equal(messages.filter((message) => message === settled).length, 1, settled);
    assert.equal(messages.filter((message) => message === 'webhook.delivery: done').length, events.length);
    const dgiiCalls = invoice.filter((line) => line.component === 'dgii-client' && line.msg === 'DGII answered');
    assert.deepEqual([...new Set(dgiiCalls.map((line) => line.service))].sort(), [
      'autenticacion',
      'consultadirectorio',
      'consultaresultado',
      'recepcion',
    ]);
  });
});
