// Webhook deliveries (SPEC §6.1), against a real HTTP receiver that verifies each one with the `standardwebhooks`
// library: signed bodies of the documented shape under both header sets; a tampered body and a stale timestamp fail
// there; fan-out to the subscribed endpoints of the event's company only; re-send keeps the delivery id with a fresh
// timestamp and signature; rotation (both signatures during the grace period, then only the new one); the retry
// schedule on a clock the test moves, Retry-After, 410 and five days of failures disabling the endpoint, the timeout,
// redirects not followed; targets refused at delivery time after DNS.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { fixedClock } from '../src/platform/clock.js';
import { retryDelaysMs } from '../src/modules/webhooks/retry-schedule.js';
import { recordExpiringCertificates } from '../src/modules/webhooks/certificate-warnings.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import {
  startWebhookReceiver,
  verifyDelivery,
  type Answer,
  type ReceivedDelivery,
  type WebhookReceiver,
} from './support/webhook-receiver.js';

interface Endpoint {
  id: string;
  secret: string;
  state: string;
  disabledReason: string | null;
}
interface Delivery {
  deliveryId: string;
  endpointId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  attempts: {
    at: string;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    response: string | null;
  }[];
}

const header = (delivery: ReceivedDelivery, name: string) => String(delivery.headers[name]);

/** The first attempt of a delivery (there must be one). */
function firstAttempt<T>(delivery: { attempts: readonly T[] }): T {
  const [attempt] = delivery.attempts;
  assert.ok(attempt !== undefined, 'no attempt was recorded');
  return attempt;
}

describe('webhook deliveries', { timeout: 300_000 }, () => {
  const clock = fixedClock(new Date());
  let testApp: TestApp;
  let receiver: WebhookReceiver;
  let key: string;
  let companyId: string;
  const call = (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: unknown,
    apiKey = key,
  ): Promise<LightMyRequestResponse> =>
    testApp.app.inject({
      method,
      url,
      headers: { 'x-api-key': apiKey },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  async function createEndpoint(path: string, events?: string[] | null, apiKey = key): Promise<Endpoint> {
    const response = await call(
      'POST',
      '/api/v1/notificaciones',
      { url: `${receiver.url}${path}`, ...(events === undefined ? {} : { events }) },
      apiKey,
    );
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: Endpoint }>().data;
  }
  let lastTestCorrelationId = '';
  /** The test delivery's id; the request's correlation id is the one it is delivered with. */
  async function test(endpointId: string): Promise<string> {
    const response = await call('POST', `/api/v1/notificaciones/${endpointId}/prueba`);
    assert.equal(response.statusCode, 202, response.body);
    lastTestCorrelationId = String(response.headers['x-correlation-id']);
    return response.json<{ data: Delivery }>().data.deliveryId;
  }
  async function delivery(deliveryId: string): Promise<Delivery> {
    const all = (await call('GET', '/api/v1/notificaciones/entregas?limit=200')).json<{ data: Delivery[] }>().data;
    const found = all.find((entry) => entry.deliveryId === deliveryId);
    assert.ok(found !== undefined, `delivery ${deliveryId} is not listed`);
    return found;
  }
  async function until(
    deliveryId: string,
    done: (delivery: Delivery) => boolean,
    timeoutMs = 20_000,
  ): Promise<Delivery> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await delivery(deliveryId);
      if (done(found)) return found;
      if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} stayed ${JSON.stringify(found)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const afterAttempt = (count: number) => (found: Delivery) =>
    found.attemptCount >= count &&
    found.status !== 'pending' &&
    (found.status !== 'failed' || found.nextAttemptAt !== null);

  before(async () => {
    receiver = await startWebhookReceiver();
    testApp = await startTestApp({
      clock,
      roles: { http: true, work: true, schedule: false },
      env: { OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOKS_TIMEOUT_MS: '1000', WEBHOOKS_DISPATCH_INTERVAL_MS: '50' },
    });
    companyId = await testApp.provisionCompany();
    key = (await testApp.issueKey(companyId, ['webhooks:manage', 'sequences:manage'])).apiKey;
  });
  after(async () => {
    await testApp.close();
    await receiver.close();
  });

  let verified: Endpoint;
  let firstDelivery: ReceivedDelivery;

  it('delivers {id, type, createdAt, environment, company, correlationId, data}, verified by standardwebhooks under both header sets', async () => {
    verified = await createEndpoint('/verified');
    receiver.secretFor.set('/verified', verified.secret);
    const deliveryId = await test(verified.id);
    const [arrived] = await receiver.waitFor(1, (entry) => header(entry, 'webhook-id') === deliveryId);
    assert.ok(arrived !== undefined);
    firstDelivery = arrived;
    assert.equal(firstDelivery.standardError, undefined);
    assert.equal(firstDelivery.serviceError, undefined);
    assert.equal(firstDelivery.answered, 200);
    assert.equal(header(firstDelivery, 'x-service-event'), 'webhook.test');
    for (const [service, standard] of [
      ['x-service-delivery', 'webhook-id'],
      ['x-service-timestamp', 'webhook-timestamp'],
      ['x-service-signature', 'webhook-signature'],
    ] as const) {
      assert.equal(header(firstDelivery, service), header(firstDelivery, standard));
    }
    assert.equal(header(firstDelivery, 'webhook-timestamp'), String(Math.floor(clock.now().getTime() / 1_000)));
    assert.match(header(firstDelivery, 'webhook-signature'), /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.match(String(firstDelivery.headers['content-type']), /^application\/json/);
    const body = JSON.parse(firstDelivery.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['id', 'type', 'createdAt', 'environment', 'company', 'correlationId', 'data']);
    assert.equal(body.correlationId, lastTestCorrelationId);
    assert.equal(body.type, 'webhook.test');
    assert.equal(body.environment, 'TEST');
    assert.deepEqual(Object.keys(body.company as object), ['id', 'rnc']);
    assert.equal((body.company as { id: string }).id, companyId);
    assert.equal((body.data as { endpointId: string }).endpointId, verified.id);

    const recorded = await until(deliveryId, (found) => found.status === 'succeeded');
    assert.equal(recorded.attemptCount, 1);
    assert.equal(recorded.attempts.length, 1);
    assert.equal(firstAttempt(recorded).statusCode, 200);
    assert.equal(firstAttempt(recorded).response, 'ok');
    assert.equal(firstAttempt(recorded).error, null);
  });

  it('fails verification there for a tampered body, a wrong secret, or a timestamp outside 5 minutes', async () => {
    const tampered = {
      headers: firstDelivery.headers,
      body: firstDelivery.body.replace('webhook.test', 'document.accepted'),
    };
    assert.match(verifyDelivery(tampered, verified.secret) ?? '', /signature/i);
    assert.match(verifyDelivery(tampered, verified.secret, 'service') ?? '', /signature/i);
    assert.match(verifyDelivery(firstDelivery, `whsec_${Buffer.alloc(32, 7).toString('base64')}`) ?? '', /signature/i);
    // The service's clock six minutes behind: the receiver refuses the delivery as too old, and the attempt says so.
    clock.set(new Date(Date.now() - 6 * 60_000));
    const stale = await test(verified.id);
    const [refused] = await receiver.waitFor(1, (entry) => header(entry, 'webhook-id') === stale);
    assert.match(refused?.standardError ?? '', /timestamp too old/i);
    assert.equal(refused?.answered, 401);
    const recorded = await until(stale, afterAttempt(1));
    assert.equal(recorded.status, 'failed');
    assert.equal(firstAttempt(recorded).statusCode, 401);
    assert.match(firstAttempt(recorded).response ?? '', /timestamp too old/i);
    clock.set(new Date());
  });

  it('re-sends a delivery with the same id, a fresh timestamp and a fresh signature (202)', async () => {
    const deliveryId = header(firstDelivery, 'webhook-id');
    clock.advance(2_000);
    const response = await call('POST', `/api/v1/notificaciones/entregas/${deliveryId}/reenvios`);
    assert.equal(response.statusCode, 202, response.body);
    assert.equal(response.json<{ data: Delivery }>().data.deliveryId, deliveryId);
    const both = await receiver.waitFor(2, (entry) => header(entry, 'webhook-id') === deliveryId);
    const again = both[1] as ReceivedDelivery;
    assert.equal(again.body, firstDelivery.body);
    assert.notEqual(header(again, 'webhook-timestamp'), header(firstDelivery, 'webhook-timestamp'));
    assert.notEqual(header(again, 'webhook-signature'), header(firstDelivery, 'webhook-signature'));
    assert.equal(again.standardError, undefined);
    const recorded = await until(deliveryId, (found) => found.attemptCount === 2 && found.status === 'succeeded');
    assert.equal(recorded.attempts.length, 2);
  });

  it("fans an event out to the subscribed endpoints of the event's company only, once each", async () => {
    const subscribed = await createEndpoint('/allocations', ['allocation.reserved']);
    const everything = await createEndpoint('/everything', null);
    const elsewhere = await createEndpoint('/elsewhere', ['document.accepted']);
    const other = await testApp.provisionCompany();
    const otherKey = (await testApp.issueKey(other, ['webhooks:manage'])).apiKey;
    await createEndpoint('/other-company', null, otherKey);
    const nextYear = new Date().getUTCFullYear() + 1;
    assert.equal(
      (
        await call('POST', '/api/v1/secuencias/rangos', {
          ecfType: '31',
          from: 'E310000000001',
          to: 'E310000001000',
          expiresOn: `31-12-${String(nextYear)}`,
        })
      ).statusCode,
      201,
    );
    const reserved = await call('POST', '/api/v1/secuencias/asignaciones', {
      ecfType: '31',
      deviceId: 'caja-1',
      count: 10,
    });
    assert.equal(reserved.statusCode, 201, reserved.body);
    const allocationId = reserved.json<{ data: { id: string } }>().data.id;
    // The first endpoint of the suite (/verified) takes every type too.
    const arrived = await receiver.waitFor(3, (entry) => header(entry, 'x-service-event') === 'allocation.reserved');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const all = receiver.deliveries.filter((entry) => header(entry, 'x-service-event') === 'allocation.reserved');
    assert.deepEqual(all.map((entry) => entry.path).sort(), ['/allocations', '/everything', '/verified']);
    assert.equal(new Set(arrived.map((entry) => header(entry, 'webhook-id'))).size, 3);
    assert.ok(all.every((entry) => entry.standardError === undefined || entry.path !== '/verified'));
    const bodies = all.map((entry) => JSON.parse(entry.body) as { id: string; data: { allocationId: string } });
    assert.equal(new Set(bodies.map((body) => body.id)).size, 1, 'one event, three deliveries');
    assert.equal(bodies[0]?.data.allocationId, allocationId);
    const listed = (await call('GET', `/api/v1/notificaciones/entregas?endpointId=${elsewhere.id}`)).json<{
      data: unknown[];
    }>().data;
    assert.deepEqual(listed, []);
    for (const endpoint of [subscribed, everything]) {
      const page = (
        await call('GET', `/api/v1/notificaciones/entregas?endpointId=${endpoint.id}&status=succeeded`)
      ).json<{ data: Delivery[] }>().data;
      assert.deepEqual(
        page.map((entry) => entry.eventType),
        ['allocation.reserved'],
      );
    }
  });

  it('warns once of a signing certificate expiring within 30 days (the daily job), as certificate.expiring', async () => {
    const watcher = await createEndpoint('/certificates', ['certificate.expiring']);
    const notAfter = new Date(clock.now().getTime() + 10 * 86_400_000 + 3_600_000);
    const certificate = createSelfSignedP12({
      commonName: 'EMISOR',
      serialNumber: '131000001',
      notBefore: new Date('2026-01-01'),
      notAfter,
      password: 'clave',
    });
    const installed = await testApp.sendEvent('certificate.installed', {
      companyId,
      p12Base64: certificate.p12.toString('base64'),
      password: 'clave',
    });
    assert.equal(installed.statusCode, 200, installed.body);
    const { db } = testApp.application.database;
    assert.equal(await recordExpiringCertificates(db, clock, 'TEST'), 1);
    assert.equal(await recordExpiringCertificates(db, clock, 'TEST'), 1, 'found again the next day...');
    const [warning] = await receiver.waitFor(1, (entry) => entry.path === '/certificates');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(receiver.deliveries.filter((entry) => entry.path === '/certificates').length, 1, '...but warned once');
    const body = JSON.parse((warning as ReceivedDelivery).body) as {
      type: string;
      data: { daysLeft: number; notAfter: string };
    };
    assert.equal(body.type, 'certificate.expiring');
    assert.equal(body.data.daysLeft, 11);
    assert.equal(body.data.notAfter.slice(0, 16), notAfter.toISOString().slice(0, 16));
    await call('PATCH', `/api/v1/notificaciones/${watcher.id}`, { state: 'disabled' });
  });

  it('signs with both secrets during the grace period after a rotation, and with the new one only after it', async () => {
    const rotated = (await call('POST', `/api/v1/notificaciones/${verified.id}/rotar-secreto`)).json<{
      data: Endpoint;
    }>().data;
    receiver.secretFor.set('/verified', rotated.secret);
    const during = await test(verified.id);
    const [delivered] = await receiver.waitFor(1, (entry) => header(entry, 'webhook-id') === during);
    assert.ok(delivered !== undefined);
    const signatures = header(delivered, 'webhook-signature').split(' ');
    assert.equal(signatures.length, 2);
    assert.equal(header(delivered, 'x-service-signature'), header(delivered, 'webhook-signature'));
    const only = (signature: string) => ({
      headers: { ...delivered.headers, 'webhook-signature': signature },
      body: delivered.body,
    });
    assert.equal(verifyDelivery(only(signatures[0] ?? ''), rotated.secret), undefined);
    assert.equal(verifyDelivery(only(signatures[1] ?? ''), verified.secret), undefined);
    assert.notEqual(verifyDelivery(only(signatures[0] ?? ''), verified.secret), undefined);
    assert.equal(verifyDelivery(delivered, verified.secret), undefined, 'a receiver still on the old secret verifies');

    // 24 h later the old secret no longer signs. (The clock is a day ahead, so the library's 5-minute window
    // would refuse the timestamp: the signature is compared with the library's own signing instead.)
    clock.advance(24 * 3_600_000 + 1_000);
    receiver.secretFor.delete('/verified');
    const afterGrace = await test(verified.id);
    const [late] = await receiver.waitFor(1, (entry) => header(entry, 'webhook-id') === afterGrace);
    assert.ok(late !== undefined);
    const signedAt = new Date(Number(header(late, 'webhook-timestamp')) * 1_000);
    assert.equal(header(late, 'webhook-signature'), new Webhook(rotated.secret).sign(afterGrace, signedAt, late.body));
    assert.notEqual(
      header(late, 'webhook-signature'),
      new Webhook(verified.secret).sign(afterGrace, signedAt, late.body),
    );
  });

  it('retries on the schedule immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with jitter, then gives up', async () => {
    await createEndpoint('/observer', ['webhook.endpoint_disabled']);
    receiver.answer = (entry): Answer =>
      entry.path === '/failing'
        ? { status: 500, body: 'down' }
        : entry.path === '/busy'
          ? { status: 503, headers: { 'retry-after': '3600' } }
          : entry.path === '/gone'
            ? { status: 410 }
            : entry.path === '/slow'
              ? { status: 200, delayMs: 3_000 }
              : entry.path === '/redirect'
                ? { status: 302, headers: { location: 'http://10.0.0.1/' } }
                : { status: 200, body: 'ok' };
    const failing = await createEndpoint('/failing');
    const deliveryId = await test(failing.id);
    for (let attempt = 1; attempt <= retryDelaysMs.length; attempt++) {
      const recorded = await until(deliveryId, afterAttempt(attempt));
      assert.equal(recorded.attemptCount, attempt);
      assert.equal(recorded.attempts.at(-1)?.statusCode, 500);
      assert.equal(recorded.attempts.at(-1)?.response, 'down');
      if (attempt === retryDelaysMs.length) {
        assert.equal(recorded.status, 'exhausted');
        assert.equal(recorded.nextAttemptAt, null);
        break;
      }
      assert.equal(recorded.status, 'failed');
      const waited = Date.parse(recorded.nextAttemptAt ?? '') - clock.now().getTime();
      const scheduled = retryDelaysMs[attempt] ?? 0;
      assert.ok(
        waited >= scheduled && waited <= scheduled * 1.1,
        `attempt ${String(attempt)}: next in ${String(waited)} ms, scheduled ${String(scheduled)}`,
      );
      // Not before it is due...
      clock.advance(waited - 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await delivery(deliveryId)).attemptCount, attempt);
      // ...and at once when it is.
      clock.advance(1);
    }
    assert.equal(
      receiver.deliveries.filter((entry) => header(entry, 'webhook-id') === deliveryId).length,
      retryDelaysMs.length,
    );
    const endpoint = (await call('GET', `/api/v1/notificaciones/${failing.id}`)).json<{
      data: Endpoint & { failingSince: string | null };
    }>().data;
    assert.equal(endpoint.state, 'enabled', 'about 28 h of failures do not disable it');
    assert.ok(endpoint.failingSince !== null);

    // Five days after its first failure, the next failure disables it, with an event to the company's other endpoints.
    clock.set(new Date(Date.parse(endpoint.failingSince) + 5 * 86_400_000));
    const last = await test(failing.id);
    const ended = await until(last, afterAttempt(1));
    assert.equal(ended.status, 'exhausted');
    const disabled = (await call('GET', `/api/v1/notificaciones/${failing.id}`)).json<{ data: Endpoint }>().data;
    assert.equal(disabled.state, 'disabled');
    assert.match(disabled.disabledReason ?? '', /every attempt has failed since/);
    const [notice] = await receiver.waitFor(
      1,
      (entry) => entry.path === '/observer' && entry.body.includes(failing.id),
    );
    assert.equal(header(notice as ReceivedDelivery, 'x-service-event'), 'webhook.endpoint_disabled');
  });

  it('waits for Retry-After when it is longer than the schedule', async () => {
    const busy = await createEndpoint('/busy');
    const deliveryId = await test(busy.id);
    const recorded = await until(deliveryId, afterAttempt(1));
    assert.equal(recorded.status, 'failed');
    assert.equal(firstAttempt(recorded).statusCode, 503);
    assert.equal(Date.parse(recorded.nextAttemptAt ?? '') - clock.now().getTime(), 3_600_000);
  });

  it('disables an endpoint that answers 410, with an event, and attempts nothing more to it', async () => {
    const gone = await createEndpoint('/gone');
    const deliveryId = await test(gone.id);
    const recorded = await until(deliveryId, afterAttempt(1));
    assert.equal(recorded.status, 'exhausted');
    assert.equal(firstAttempt(recorded).statusCode, 410);
    const endpoint = (await call('GET', `/api/v1/notificaciones/${gone.id}`)).json<{ data: Endpoint }>().data;
    assert.equal(endpoint.state, 'disabled');
    assert.match(endpoint.disabledReason ?? '', /410/);
    await receiver.waitFor(1, (entry) => entry.path === '/observer' && entry.body.includes(gone.id));
    const next = await test(gone.id);
    const skipped = await until(next, (found) => found.status === 'exhausted');
    assert.equal(skipped.attempts.length, 0);
    assert.match(skipped.lastError ?? '', /endpoint disabled/);
    assert.equal(receiver.deliveries.filter((entry) => entry.path === '/gone').length, 1);
  });

  it('counts no answer within the timeout as a failure (WEBHOOKS_TIMEOUT_MS, 15 s by default)', async () => {
    const slow = await createEndpoint('/slow');
    const recorded = await until(await test(slow.id), afterAttempt(1));
    assert.equal(recorded.status, 'failed');
    assert.equal(firstAttempt(recorded).statusCode, null);
    assert.equal(firstAttempt(recorded).error, 'no answer within 1000 ms');
    const took = firstAttempt(recorded).durationMs;
    assert.ok(took >= 990 && took < 2_500, String(took));
  });

  it('does not follow a redirect (to a private address): a 3xx is a failure', async () => {
    const redirect = await createEndpoint('/redirect');
    const recorded = await until(await test(redirect.id), afterAttempt(1));
    assert.equal(recorded.status, 'failed');
    assert.equal(firstAttempt(recorded).statusCode, 302);
    assert.match(firstAttempt(recorded).error ?? '', /redirects are not followed/);
    assert.equal(receiver.deliveries.filter((entry) => entry.path === '/redirect').length, 1);
  });
});

describe('webhook targets checked again at delivery time', { timeout: 120_000 }, () => {
  let testApp: TestApp;
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await startWebhookReceiver();
    testApp = await startTestApp({
      roles: { http: true, work: true, schedule: false },
      env: { OUTBOUND_ALLOW_PRIVATE: 'false', WEBHOOKS_DISPATCH_INTERVAL_MS: '50' },
    });
  });
  after(async () => {
    await testApp.close();
    await receiver.close();
  });

  for (const [label, target] of [
    ['an address that became private (loopback)', (url: string) => url],
    ['a name that now resolves to loopback', (url: string) => url.replace('127.0.0.1', 'localhost')],
  ] as const) {
    it(`refuses ${label} after DNS, sending nothing`, async () => {
      const companyId = await testApp.provisionCompany();
      const { apiKey } = await testApp.issueKey(companyId, ['webhooks:manage']);
      const created = await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/notificaciones',
        headers: { 'x-api-key': apiKey },
        payload: { url: 'https://93.184.215.14/hook' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json<{ data: { id: string } }>().data.id;
      // What the DNS of a public name can do after creation: point it at a private address.
      await testApp.application.database.db
        .updateTable('webhook_endpoints')
        .set({ url: target(`${receiver.url}/inside`) })
        .where('id', '=', id)
        .execute();
      const tested = await testApp.app.inject({
        method: 'POST',
        url: `/api/v1/notificaciones/${id}/prueba`,
        headers: { 'x-api-key': apiKey },
      });
      assert.equal(tested.statusCode, 202);
      const deliveryId = tested.json<{ data: { deliveryId: string } }>().data.deliveryId;
      const deadline = Date.now() + 20_000;
      let attempts: { statusCode: number | null; error: string | null }[] = [];
      while (attempts.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const listed = await testApp.app.inject({
          url: '/api/v1/notificaciones/entregas',
          headers: { 'x-api-key': apiKey },
        });
        attempts =
          listed
            .json<{ data: { deliveryId: string; attempts: typeof attempts }[] }>()
            .data.find((entry) => entry.deliveryId === deliveryId)?.attempts ?? [];
      }
      assert.equal(attempts.length, 1);
      assert.equal(firstAttempt({ attempts }).statusCode, null);
      assert.match(
        firstAttempt({ attempts }).error ?? '',
        /^target refused: (127\.0\.0\.1|localhost) resolves to .*loopback, private/,
      );
      assert.equal(receiver.deliveries.length, 0);
    });
  }
});
