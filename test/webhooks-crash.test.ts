// Webhook crash safety (DESIGN §5.5): deliveries are attempted by an `ecf worker` process that is SIGKILLed at random
// moments while events keep coming (offline blocks reserved, test deliveries asked for), then restarted; at the end
// one worker runs undisturbed. Every event reaches the endpoint under exactly one delivery id (a repeat only with the
// same id), and every delivery ends succeeded: none is lost.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { postgresAvailable } from './support/backends.js';
import { threadNices } from './support/proc-stat.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const onPostgres = await postgresAvailable();
const blocks = 120;
const kills = 4;
// A 1 s timeout gives a 7 s delivery lease: the deliveries a killed worker held are claimed again once it runs out.
const timings = {
  OUTBOUND_ALLOW_PRIVATE: 'true',
  WEBHOOKS_TIMEOUT_MS: '1000',
  WEBHOOKS_DISPATCH_INTERVAL_MS: '50',
  QUEUE_MAINTENANCE_SECONDS: '1',
};

describe(
  `webhook crash safety: the worker is SIGKILLed ${String(kills)} times while deliveries are pending`,
  {
    skip: onPostgres ? false : 'needs PostgreSQL at 127.0.0.1:5432: the worker runs in child processes',
    timeout: 300_000,
  },
  () => {
    let world: SendingWorld;
    let receiver: WebhookReceiver;
    let worker: WorkerProcess | undefined;

    before(async () => {
      receiver = await startWebhookReceiver();
      // Slow answers keep attempts in flight, so kills land mid-delivery.
      receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 150 });
      world = await startSendingWorld({ roles: { http: true, work: false, schedule: false }, env: timings });
    });
    after(async () => {
      if (worker !== undefined && worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
        await worker.exited;
      }
      await world.close();
      await receiver.close();
    });

    it('loses no delivery and delivers each event under one delivery id', async () => {
      const db = world.app.application.database.db;
      const env = { ...world.processEnv(), ...timings };
      const { apiKey } = await world.app.issueKey(world.companyId, ['webhooks:manage', 'sequences:manage']);
      const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
        world.app.app.inject({
          method,
          url,
          headers: { 'x-api-key': apiKey },
          ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
        });
      const created = await call('POST', '/api/v1/notificaciones', {
        url: `${receiver.url}/erp`,
        events: ['allocation.reserved', 'webhook.test'],
      });
      assert.equal(created.statusCode, 201, created.body);
      const endpointId = created.json<{ data: { id: string } }>().data.id;
      receiver.secretFor.set('/erp', created.json<{ data: { secret: string } }>().data.secret);

      const produce = async () => {
        for (let i = 0; i < blocks; i++) {
          const reserved = await call('POST', '/api/v1/secuencias/asignaciones', {
            ecfType: '31',
            deviceId: `caja-${String(i)}`,
            count: 1,
          });
          assert.equal(reserved.statusCode, 201, reserved.body);
          if (i % 3 === 0)
            assert.equal((await call('POST', `/api/v1/notificaciones/${endpointId}/prueba`)).statusCode, 202);
          await sleep(15);
        }
      };
      const producing = produce();

      const killedWith: (NodeJS.Signals | null)[] = [];
      for (let kill = 0; kill < kills; kill++) {
        const current = startWorkerProcess(env);
        worker = current;
        await current.ready;
        // A worker yields the CPU to the API (BACKGROUND_NICE, default 10), every thread of it (V8's own threads too):
        // read from /proc.
        if (kill === 0 && process.platform === 'linux') {
          const nices = threadNices(current.child.pid ?? 0);
          assert.ok(nices.length > 1);
          assert.deepEqual(new Set(nices), new Set([10]));
        }
        await sleep(500 + Math.random() * 1_000);
        for (let wait = 0; wait < 50; wait++) {
          const held = await db
            .selectFrom('webhook_deliveries as d')
            .innerJoin('outbound_work as w', (join) =>
              join.onRef('w.item_id', '=', 'd.id').on('w.target', '=', 'webhook.delivery'),
            )
            .select('d.id')
            .where('w.lease_id', 'is not', null)
            .where('d.status', 'in', ['pending', 'failed'])
            .executeTakeFirst();
          if (held !== undefined) break;
          await sleep(50);
        }
        current.child.kill('SIGKILL');
        killedWith.push((await current.exited).signal);
      }
      assert.deepEqual(
        killedWith,
        Array.from({ length: kills }, () => 'SIGKILL'),
      );
      await producing;

      const last = startWorkerProcess(env);
      worker = last;
      const expected = blocks + Math.ceil(blocks / 3);
      const deadline = Date.now() + 120_000;
      for (;;) {
        const states = await db
          .selectFrom('webhook_deliveries')
          .select(['status', (eb) => eb.fn.countAll<string>().as('count')])
          .where('endpoint_id', '=', endpointId)
          .groupBy('status')
          .execute();
        const succeeded = Number(states.find((state) => state.status === 'succeeded')?.count ?? 0);
        if (succeeded === expected) break;
        if (Date.now() > deadline) throw new Error(`deliveries: ${JSON.stringify(states)}\n${last.output()}`);
        await sleep(250);
      }
      const undispatched = await db
        .selectFrom('domain_events')
        .select('id')
        .where('company_id', '=', world.companyId)
        .where('dispatched_at', 'is', null)
        .execute();
      assert.deepEqual(undispatched, []);
      const waiting = await db
        .selectFrom('outbound_work')
        .select('item_id')
        .where('target', '=', 'outbox')
        .where('environment', '=', world.app.config.fiscalEnv)
        .execute();
      assert.deepEqual(waiting, [], 'every event fanned out left the outbox queue');

      // Every event has one delivery, and the receiver saw each delivery (repeats only under the same id).
      const events = await db
        .selectFrom('domain_events')
        .select('id')
        .where('company_id', '=', world.companyId)
        .where('type', '=', 'allocation.reserved')
        .execute();
      assert.equal(events.length, blocks);
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select(['id', 'event_id'])
        .where('endpoint_id', '=', endpointId)
        .execute();
      assert.equal(deliveries.length, expected);
      assert.equal(new Set(deliveries.map((row) => row.event_id)).size, expected);
      const seen = new Map<string, Set<string>>();
      for (const arrival of receiver.deliveries) {
        assert.equal(arrival.standardError, undefined);
        const eventId = (JSON.parse(arrival.body) as { id: string }).id;
        seen.set(eventId, (seen.get(eventId) ?? new Set()).add(String(arrival.headers['webhook-id'])));
      }
      for (const row of deliveries)
        assert.deepEqual([...(seen.get(row.event_id) ?? [])], [row.id], `event ${row.event_id}`);
      const repeats = receiver.deliveries.length - expected;
      process.stdout.write(
        `# ${String(expected)} deliveries through ${String(kills)} kills; ${String(repeats)} repeated under their own id after a kill\n`,
      );
    });
  },
);
