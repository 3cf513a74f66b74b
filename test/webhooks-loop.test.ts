// The webhook delivery loop of DESIGN §5.5 (the workers claim deliveries instead of running a job per delivery): two
// workers claiming side by side take disjoint deliveries, each leased and returned with its endpoint; a lease that
// ran out (a crashed worker's) is claimed again under the same delivery id (the leases are outbound_work's,
// platform/work); successes (recorded together: platform/group-commit.ts) end the endpoint's run of failures;
// concurrent failures of one endpoint (410) disable it once, with one event; a test delivery and a re-send wake the
// loop of this process at once instead of at the end of its rest.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createWebhookDelivery, type WebhookDelivery } from '../src/modules/webhooks/index.js';
import { deliveryLeaseMs } from '../src/modules/webhooks/delivery-engine.js';
import { fixedClock } from '../src/platform/clock.js';
import { outboxTarget, recordDomainEvent } from '../src/platform/events/domain-events.js';
import { createLogger } from '../src/platform/observability/logger.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const timeoutMs = 1_000;

describe('webhook delivery claims', { timeout: 120_000 }, () => {
  const clock = fixedClock(new Date());
  let testApp: TestApp;
  let receiver: WebhookReceiver;
  let key: string;
  let workerA: WebhookDelivery;
  let workerB: WebhookDelivery;
  let companyId: string;

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    testApp.app.inject({
      method,
      url,
      headers: { 'x-api-key': key },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  async function endpoint(path: string): Promise<string> {
    const response = await call('POST', '/api/v1/notificaciones', {
      url: `${receiver.url}${path}`,
      events: ['webhook.test'],
    });
    assert.equal(response.statusCode, 201, response.body);
    const created = response.json<{ data: { id: string; secret: string } }>().data;
    receiver.secretFor.set(path, created.secret);
    return created.id;
  }
  async function tests(endpointId: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const response = await call('POST', `/api/v1/notificaciones/${endpointId}/prueba`);
      assert.equal(response.statusCode, 202, response.body);
      ids.push(response.json<{ data: { deliveryId: string } }>().data.deliveryId);
    }
    return ids;
  }
  const db = () => testApp.application.database.db;

  before(async () => {
    receiver = await startWebhookReceiver();
    // No worker role here: the test is the worker, through two delivery engines on the app's database.
    testApp = await startTestApp({
      clock,
      env: { OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOKS_TIMEOUT_MS: String(timeoutMs) },
    });
    companyId = await testApp.provisionCompany();
    key = (await testApp.issueKey(companyId, ['webhooks:manage'])).apiKey;
    const masterKey = testApp.config.masterKey;
    assert.ok(masterKey !== undefined);
    const engine = () =>
      createWebhookDelivery({
        db: db(),
        clock,
        log: createLogger('silent'),
        environment: 'TEST',
        masterKey,
        policy: { timeoutMs, allowPrivate: true, disableAfterMs: 5 * 86_400_000 },
      });
    workerA = engine();
    workerB = engine();
  });
  after(async () => {
    await testApp.close();
    await receiver.close();
  });

  it('gives two workers claiming side by side disjoint deliveries, leased, each with its endpoint', async () => {
    const endpointId = await endpoint('/claims');
    const made = await tests(endpointId, 40);
    const [a, b] = await Promise.all([workerA.claim(25), workerB.claim(25)]);
    const rest = await workerA.claim(100);
    const claimed = [...a, ...b, ...rest].map((delivery) => delivery.id);
    assert.equal(claimed.length, 40, 'each delivery claimed once');
    assert.deepEqual([...claimed].sort(), [...made].sort());
    assert.ok(a.length > 0 && b.length > 0 && a.length <= 25 && b.length <= 25);
    for (const delivery of [...a, ...b]) {
      assert.equal(delivery.item.endpoint.url, `${receiver.url}/claims`);
      assert.equal(delivery.item.endpoint.status, 'enabled');
      assert.equal(delivery.item.event_type, 'webhook.test');
      assert.equal(delivery.item.attempts, 0);
      assert.equal(delivery.attempt.number, 1);
    }
    const leases = await db()
      .selectFrom('outbound_work')
      .select(['due_at', 'lease_id'])
      .where('target', '=', 'webhook.delivery')
      .where('item_id', 'in', made)
      .execute();
    assert.equal(leases.length, 40);
    assert.ok(
      leases.every(
        (row) => row.lease_id !== null && row.due_at.getTime() === clock.now().getTime() + deliveryLeaseMs(timeoutMs),
      ),
    );

    // Held: nobody takes them. A worker that died holding them: once the lease ran out, they are claimed again, same ids.
    assert.deepEqual(await workerB.claim(100), []);
    clock.advance(deliveryLeaseMs(timeoutMs) + 1);
    const again = await workerB.claim(100);
    assert.deepEqual(again.map((delivery) => delivery.id).sort(), [...made].sort());

    // Attempted side by side: every one arrives, is recorded succeeded with one attempt.
    await Promise.all(again.map((delivery, index) => (index % 2 === 0 ? workerA : workerB).attempt(delivery)));
    const arrived = receiver.deliveries.filter((entry) => entry.path === '/claims');
    assert.equal(arrived.length, 40);
    assert.ok(arrived.every((entry) => entry.standardError === undefined && entry.serviceError === undefined));
    // Held by no worker: the engine's lease (its queue row's) is gone with the row.
    const rows = await db()
      .selectFrom('webhook_deliveries as d')
      .leftJoin('outbound_work as w', (join) =>
        join.onRef('w.item_id', '=', 'd.id').on('w.target', '=', 'webhook.delivery'),
      )
      .select(['d.status', 'd.attempts', 'w.lease_id'])
      .where('d.endpoint_id', '=', endpointId)
      .execute();
    assert.deepEqual(
      new Set(rows.map((row) => `${row.status}/${String(row.attempts)}/${String(row.lease_id)}`)),
      new Set(['succeeded/1/null']),
    );
    const attempts = await db()
      .selectFrom('webhook_attempts')
      .select(['delivery_id', 'status_code'])
      .where('delivery_id', 'in', made)
      .execute();
    assert.equal(attempts.length, 40);
    assert.ok(attempts.every((attempt) => attempt.status_code === 200));
    assert.deepEqual(await workerA.claim(100), []);
  });

  it('fans out the events waiting in the outbox queue, takes each out of it, and settles one whose event is gone', async () => {
    await recordDomainEvent(db(), {
      companyId,
      environment: 'TEST',
      type: 'document.signed',
      payload: { documentId: 'doc_outbox', eNCF: 'E310000000001', ecfType: '31', status: 'signed' },
      occurredAt: clock.now(),
    });
    const recorded = await db()
      .selectFrom('domain_events')
      .select('id')
      .where('payload', '@>', sql<Record<string, unknown>>`'{"documentId":"doc_outbox"}'::jsonb`)
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('outbound_work')
      .values({
        target: outboxTarget,
        item_id: 'evt_gone',
        environment: 'TEST',
        due_at: new Date(clock.now().getTime() - 1_000),
      })
      .execute();
    const queued = () =>
      db()
        .selectFrom('outbound_work')
        .select('item_id')
        .where('target', '=', outboxTarget)
        .where('item_id', 'in', [recorded.id, 'evt_gone'])
        .orderBy('item_id')
        .execute();
    assert.deepEqual((await queued()).length, 2);
    while ((await workerA.dispatch(100)) > 0);
    assert.deepEqual(await queued(), []);
    const dispatched = await db()
      .selectFrom('domain_events')
      .select('dispatched_at')
      .where('id', '=', recorded.id)
      .executeTakeFirstOrThrow();
    assert.ok(dispatched.dispatched_at !== null);
  });

  it('ends the run of failures on a success, and claims a failed delivery only when its retry is due', async () => {
    const endpointId = await endpoint('/flaky');
    let flakyCalls = 0;
    receiver.answer = (entry) =>
      entry.path === '/flaky' && ++flakyCalls === 1 ? { status: 500, body: 'down' } : { status: 200, body: 'ok' };
    const [deliveryId] = await tests(endpointId, 1);
    const [first] = await workerA.claim(10);
    assert.ok(first !== undefined);
    assert.equal(first.id, deliveryId);
    await workerA.attempt(first);
    const failing = await db()
      .selectFrom('webhook_endpoints')
      .select('failing_since')
      .where('id', '=', endpointId)
      .executeTakeFirstOrThrow();
    assert.equal(failing.failing_since?.getTime(), clock.now().getTime());
    const failed = await db()
      .selectFrom('webhook_deliveries as d')
      .leftJoin('outbound_work as w', (join) =>
        join.onRef('w.item_id', '=', 'd.id').on('w.target', '=', 'webhook.delivery'),
      )
      .select(['d.status', 'd.next_attempt_at', 'w.lease_id'])
      .where('d.id', '=', deliveryId ?? '')
      .executeTakeFirstOrThrow();
    assert.equal(failed.status, 'failed');
    assert.equal(failed.lease_id, null);
    const dueIn = (failed.next_attempt_at?.getTime() ?? 0) - clock.now().getTime();
    assert.ok(dueIn >= 5_000 && dueIn <= 5_500, String(dueIn));
    clock.advance(dueIn - 1);
    assert.deepEqual(await workerB.claim(10), []);
    clock.advance(1);
    const [retry] = await workerB.claim(10);
    assert.ok(retry !== undefined);
    assert.equal(retry.id, deliveryId);
    assert.equal(retry.item.attempts, 1);
    assert.equal(retry.attempt.number, 2);
    await workerB.attempt(retry);
    const recovered = await db()
      .selectFrom('webhook_endpoints')
      .select('failing_since')
      .where('id', '=', endpointId)
      .executeTakeFirstOrThrow();
    assert.equal(recovered.failing_since, null);
    const done = await db()
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .where('id', '=', deliveryId ?? '')
      .executeTakeFirstOrThrow();
    assert.deepEqual(done, { status: 'succeeded', attempts: 2 });
  });

  it("keeps a re-send asked for while an attempt is in flight: the re-send took that attempt's lease, so it records nothing, and the delivery stays pending", async () => {
    const endpointId = await endpoint('/resent');
    const [deliveryId] = await tests(endpointId, 1);
    const [claimed] = await workerA.claim(10);
    assert.ok(claimed !== undefined && claimed.id === deliveryId);
    const resend = await call('POST', `/api/v1/notificaciones/entregas/${deliveryId}/reenvios`);
    assert.equal(resend.statusCode, 202, resend.body);
    await workerA.attempt(claimed);
    const row = await db()
      .selectFrom('webhook_deliveries as d')
      .leftJoin('outbound_work as w', (join) =>
        join.onRef('w.item_id', '=', 'd.id').on('w.target', '=', 'webhook.delivery'),
      )
      .select(['d.status', 'w.lease_id'])
      .where('d.id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'pending', lease_id: null }, 'the re-send is still to be made');
    const [again] = await workerB.claim(10);
    assert.equal(again?.id, deliveryId);
    await workerB.attempt(again);
    const done = await db()
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    assert.equal(done.status, 'succeeded');
    assert.equal(receiver.deliveries.filter((entry) => entry.path === '/resent').length, 2);
    const attempts = await db()
      .selectFrom('webhook_attempts')
      .select('id')
      .where('delivery_id', '=', deliveryId)
      .execute();
    assert.equal(attempts.length, 1);
  });

  it('disables an endpoint once, with one event, when many attempts to it fail with 410 at the same time', async () => {
    const endpointId = await endpoint('/gone');
    receiver.answer = (entry) => (entry.path === '/gone' ? { status: 410 } : { status: 200, body: 'ok' });
    const made = await tests(endpointId, 12);
    const claimed = [...(await workerA.claim(6)), ...(await workerB.claim(6))];
    assert.equal(claimed.length, 12);
    await Promise.all(claimed.map((delivery, index) => (index % 2 === 0 ? workerA : workerB).attempt(delivery)));
    const row = await db()
      .selectFrom('webhook_endpoints')
      .select(['status', 'disabled_reason'])
      .where('id', '=', endpointId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'disabled', disabled_reason: 'the endpoint answered 410 Gone' });
    const events = await db()
      .selectFrom('domain_events')
      .select('payload')
      .where('type', '=', 'webhook.endpoint_disabled')
      .execute();
    assert.equal(events.filter((event) => JSON.stringify(event.payload).includes(endpointId)).length, 1);
    const deliveries = await db()
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .where('id', 'in', made)
      .execute();
    assert.ok(
      deliveries.every((delivery) => delivery.status === 'exhausted' && delivery.attempts === 1),
      JSON.stringify(deliveries),
    );
  });

  it('counts a signing secret it cannot open as a failed attempt of its own, retried on schedule and ended exhausted, never claimed for ever', async () => {
    const endpointId = await endpoint('/sealed');
    const [deliveryId] = await tests(endpointId, 1);
    assert.ok(deliveryId !== undefined);
    // A sealed secret this master key cannot open (damaged, or sealed under another key). Last here: it moves the
    // clock a day and a half on, past what the receiver takes as a fresh signature.
    await db()
      .updateTable('webhook_endpoints')
      .set({ secret_sealed: 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA' })
      .where('id', '=', endpointId)
      .execute();
    for (let attempt = 1; attempt <= 8; attempt++) {
      const [claimed] = await workerA.claim(10);
      assert.equal(claimed?.id, deliveryId, `attempt ${String(attempt)} is claimed`);
      assert.equal(claimed.attempt.number, attempt);
      await workerA.attempt(claimed);
      const row = await db()
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts', 'last_error', 'next_attempt_at'])
        .where('id', '=', deliveryId)
        .executeTakeFirstOrThrow();
      assert.equal(row.attempts, attempt);
      assert.match(row.last_error ?? '', /^an error of this service: /);
      if (attempt < 8) {
        assert.equal(row.status, 'failed');
        assert.ok(row.next_attempt_at !== null && row.next_attempt_at > clock.now());
        assert.deepEqual(await workerB.claim(10), [], 'not claimed again before its retry is due');
        clock.set(row.next_attempt_at);
      } else {
        assert.equal(row.status, 'exhausted');
      }
    }
    assert.deepEqual(await workerA.claim(10), []);
    const attempts = await db()
      .selectFrom('webhook_attempts')
      .select(['status_code', 'error'])
      .where('delivery_id', '=', deliveryId)
      .execute();
    assert.equal(attempts.length, 8);
    assert.ok(
      attempts.every(
        (attempt) => attempt.status_code === null && attempt.error?.startsWith('an error of this service: ') === true,
      ),
    );
    assert.equal(receiver.deliveries.filter((entry) => entry.path === '/sealed').length, 0);
    // Not the endpoint's failure: its run of failures did not start.
    const row = await db()
      .selectFrom('webhook_endpoints')
      .select(['status', 'failing_since'])
      .where('id', '=', endpointId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'enabled', failing_since: null });
  });
});

describe('the delivery loop of a worker', { timeout: 120_000 }, () => {
  let testApp: TestApp;
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await startWebhookReceiver();
    // A rest of 20 s: whatever arrives sooner was not found by polling.
    testApp = await startTestApp({
      roles: { http: true, work: true, schedule: false },
      env: { OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOKS_DISPATCH_INTERVAL_MS: '20000' },
    });
  });
  after(async () => {
    await testApp.close();
    await receiver.close();
  });

  it('is woken at once by a test delivery and by a re-send in its process, not at the end of its rest', async () => {
    const companyId = await testApp.provisionCompany();
    const { apiKey } = await testApp.issueKey(companyId, ['webhooks:manage']);
    const call = (url: string) =>
      testApp.app.inject({
        method: 'POST',
        url,
        headers: { 'x-api-key': apiKey },
        payload: url.endsWith('notificaciones') ? { url: `${receiver.url}/woken` } : {},
      });
    const created = await call('/api/v1/notificaciones');
    assert.equal(created.statusCode, 201, created.body);
    const endpointId = created.json<{ data: { id: string } }>().data.id;
    // Let the loop's first claim (at start) pass and its rest begin.
    await new Promise((resolve) => setTimeout(resolve, 500));
    let asked = Date.now();
    const tested = await call(`/api/v1/notificaciones/${endpointId}/prueba`);
    assert.equal(tested.statusCode, 202);
    const deliveryId = tested.json<{ data: { deliveryId: string } }>().data.deliveryId;
    const [first] = await receiver.waitFor(1, (entry) => entry.path === '/woken', 5_000);
    assert.ok(
      (first?.at ?? Infinity) - asked < 2_000,
      `arrived ${String((first?.at ?? Infinity) - asked)} ms after it was asked for`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    asked = Date.now();
    assert.equal((await call(`/api/v1/notificaciones/entregas/${deliveryId}/reenvios`)).statusCode, 202);
    const both = await receiver.waitFor(2, (entry) => entry.path === '/woken', 5_000);
    assert.ok((both[1]?.at ?? Infinity) - asked < 2_000);
    assert.deepEqual(
      both.map((entry) => entry.headers['webhook-id']),
      [deliveryId, deliveryId],
    );
  });
});
