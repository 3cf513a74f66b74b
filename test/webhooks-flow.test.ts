// Webhooks end to end (DESIGN §5.5): documents created and sent through the DGII sandbox produce, per document,
// document.signed, document.queued and document.accepted (in that order of createdAt), each delivered once to the
// company's endpoint and verified there by the standardwebhooks library.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { ecfDocuments } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

interface Body {
  id: string;
  type: string;
  createdAt: string;
  data: { documentId: string; eNCF: string; status: string };
}

describe('webhooks of the document flow (sandbox)', { timeout: 300_000 }, () => {
  let world: SendingWorld;
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await startWebhookReceiver();
    world = await startSendingWorld({ env: { OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOKS_DISPATCH_INTERVAL_MS: '50' } });
  });
  after(async () => {
    await world.close();
    await receiver.close();
  });

  it('delivers signed, queued and accepted for each document, once each, verified by the receiver', async () => {
    const { apiKey } = await world.app.issueKey(world.companyId, ['webhooks:manage']);
    const created = await world.app.app.inject({
      method: 'POST',
      url: '/api/v1/notificaciones',
      headers: { 'x-api-key': apiKey },
      payload: {
        url: `${receiver.url}/erp`,
        events: ['document.signed', 'document.queued', 'document.accepted', 'document.rejected'],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    receiver.secretFor.set('/erp', created.json<{ data: { secret: string } }>().data.secret);

    const ids: string[] = [];
    for (const type of ['31', '32', '31'] as const) {
      const document = await world.create(ecfDocuments[type]);
      await world.send(document.id);
      ids.push(document.id);
    }
    for (const id of ids) assert.equal((await world.untilSettled(id)).status, 'accepted');
    await receiver.waitFor(ids.length * 3);
    // Anything late or doubled would show up now.
    await sleep(1_500);

    const bodies = receiver.deliveries.map((delivery) => JSON.parse(delivery.body) as Body);
    assert.equal(receiver.deliveries.length, ids.length * 3);
    assert.deepEqual(
      receiver.deliveries.filter(
        (delivery) => delivery.standardError !== undefined || delivery.serviceError !== undefined,
      ),
      [],
    );
    assert.equal(
      new Set(receiver.deliveries.map((delivery) => String(delivery.headers['webhook-id']))).size,
      receiver.deliveries.length,
      'a delivery id arrived twice',
    );
    assert.equal(new Set(bodies.map((body) => body.id)).size, bodies.length, 'an event was delivered twice');
    for (const id of ids) {
      const own = bodies
        .filter((body) => body.data.documentId === id)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      assert.deepEqual(
        own.map((body) => body.type),
        ['document.signed', 'document.queued', 'document.accepted'],
        id,
      );
      assert.deepEqual(
        own.map((body) => body.data.status),
        ['signed', 'queued', 'accepted'],
      );
      assert.equal(new Set(own.map((body) => body.data.eNCF)).size, 1);
    }
    const listed = await world.app.app.inject({
      url: '/api/v1/notificaciones/entregas?status=succeeded&limit=200',
      headers: { 'x-api-key': apiKey },
    });
    assert.equal(listed.json<{ data: unknown[] }>().data.length, ids.length * 3);
  });
});
