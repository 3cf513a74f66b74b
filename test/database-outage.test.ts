// The service rides through PostgreSQL going away (issue 43): `ecf serve`, `ecf worker` and `ecf scheduler` run in
// processes of their own on a PostgreSQL server of this test's own (never the shared one), behind a TCP proxy, while
// six clients create and send invoices. The server is (a) restarted with its fast shutdown, (b) stopped for 15 s,
// and (c) every connection is cut at the proxy. After each every process is alive and the API ready again within
// 10 s of the server's return; every answer was a 201/202 or a 503 problem+json; every document a client saw
// created ends accepted, reached DGII once; every e-NCF handed out numbers a stored document or is burned, none
// twice; each document's webhook reached the integrator under one delivery id; the worker's archive check takes up
// the documents made after the outage; and the verifier finds nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { postgresAvailable } from './support/backends.js';
import { freePort } from './support/free-port.js';
import { privatePostgresAvailable, startPrivatePostgres, type PrivatePostgres } from './support/private-postgres.js';
import { assertNothingLostOrDoubled, startLoad, unexpectedAnswers } from './support/fault-load.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { skipUnlessTools } from './support/tools.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from './support/webhook-receiver.js';
import { startEcfProcess, type WorkerProcess } from './support/worker-process.js';

const unavailable = !(await postgresAvailable())
  ? 'needs the shared PostgreSQL server, for the sandbox'
  : skipUnlessTools('initdb', 'pg_ctl') ||
    ((await privatePostgresAvailable()) ? false : 'needs initdb and pg_ctl in one directory and the postgres user');
const clients = 6;

describe(
  'a PostgreSQL restart, stop and cut under load',
  {
    skip: unavailable,
    timeout: 300_000,
  },
  () => {
    let cluster: PrivatePostgres;
    let proxy: TcpProxy;
    let world: SendingWorld;
    let processes: WorkerProcess[] = [];
    let baseUrl: string;
    let apiKey: string;
    let receiver: WebhookReceiver;

    before(async () => {
      receiver = await startWebhookReceiver();
      cluster = await startPrivatePostgres();
      proxy = await startTcpProxy({ host: '127.0.0.1', port: cluster.port });
      // This process provisions the company and reads the records at the end; the service under test runs apart.
      world = await startSendingWorld({
        roles: { http: true, work: false, schedule: false },
        databaseServer: cluster.adminUrl,
        env: { ARCHIVE_ORPHAN_GRACE_MINUTES: '0' },
      });
      apiKey = (await world.app.issueKey(world.companyId, ['documents:create', 'documents:read', 'documents:send']))
        .apiKey;
      // The integrator hears of each document signed by webhook, an outbox event each.
      const { apiKey: webhooksKey } = await world.app.issueKey(world.companyId, ['webhooks:manage']);
      const endpoint = await world.app.app.inject({
        method: 'POST',
        url: '/api/v1/notificaciones',
        headers: { 'x-api-key': webhooksKey },
        payload: { url: `${receiver.url}/erp`, events: ['document.signed'] },
      });
      assert.equal(endpoint.statusCode, 201, endpoint.body);
      receiver.secretFor.set('/erp', endpoint.json<{ data: { secret: string } }>().data.secret);
      const env = world.processEnv();
      const databaseUrl = new URL(env['DATABASE_URL'] ?? '');
      databaseUrl.port = String(proxy.port);
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${String(port)}`;
      const processEnv = {
        ...env,
        DATABASE_URL: databaseUrl.toString(),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_POOL_SIZE: '10',
        SEND_LEASE_SECONDS: '8',
        SEND_RETRY_BASE_MS: '200',
        SEND_MAX_ATTEMPTS: '50',
        DGII_CONNECT_TIMEOUT_MS: '1000',
        DGII_RESPONSE_TIMEOUT_MS: '2500',
        BACKGROUND_NICE: '0',
        OUTBOUND_ALLOW_PRIVATE: 'true',
        WEBHOOKS_TIMEOUT_MS: '1000',
        ARCHIVE_RECENT_SETTLE_SECONDS: '1',
      };
      processes = (['serve', 'worker', 'scheduler'] as const).map((role) => startEcfProcess(role, processEnv));
      await Promise.all(processes.map((started) => started.ready));
    });
    after(async () => {
      for (const started of processes)
        if (started.child.exitCode === null && started.child.signalCode === null) {
          started.child.kill('SIGTERM');
          await started.exited;
        }
      await world.close();
      await receiver.close();
      await proxy.close();
      await cluster.close();
    });

    async function call(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
      try {
        const response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: {
            'x-api-key': apiKey,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.text();
        return { status: response.status, type: response.headers.get('content-type') ?? '', text };
      } catch (error) {
        return { status: `network: ${error instanceof Error ? error.message : String(error)}`, type: '', text: '' };
      }
    }

    it('stays up, comes back by itself, and loses and doubles nothing', async () => {
      const roles = ['serve', 'worker', 'scheduler'];
      const output = () =>
        processes.map((started, index) => `--- ${String(roles[index])}\n${started.output()}`).join('\n');
      const alive = () => {
        processes.forEach((started, index) => {
          const died = `ecf ${String(roles[index])} died:\n${started.output()}`;
          assert.equal(started.child.exitCode, null, died);
          assert.equal(started.child.signalCode, null, died);
        });
      };

      async function readyAgain(since: number): Promise<number> {
        for (;;) {
          alive();
          const ready = await call('GET', '/ready');
          if (ready.status === 200) return Date.now() - since;
          assert.ok(Date.now() - since < 10_000, `not ready 10 s after the server came back: ${ready.text}`);
          await sleep(100);
        }
      }

      const load = startLoad(call, { clients, retried: [503] });
      const readyAfter: Record<string, number> = {};
      try {
        await sleep(3_000);

        load.phase = 'restart';
        await cluster.restart('fast');
        readyAfter['restart'] = await readyAgain(Date.now());
        alive();
        await sleep(3_000);

        load.phase = 'stop';
        await cluster.stop('fast');
        await sleep(2_000);
        // While it is away: alive, ready says which dependency is down, requests are 503 problem+json.
        assert.equal((await call('GET', '/health')).status, 200);
        const notReady = await call('GET', '/ready');
        assert.equal(notReady.status, 503, notReady.text);
        const checks = (JSON.parse(notReady.text) as { checks: Record<string, { status: string }> }).checks;
        assert.equal(checks['database']?.status, 'down', notReady.text);
        assert.equal(checks['cache']?.status, 'up', notReady.text);
        await sleep(13_000);
        await cluster.start();
        readyAfter['stop'] = await readyAgain(Date.now());
        alive();
        await sleep(3_000);

        load.phase = 'cut';
        proxy.cut();
        readyAfter['cut'] = await readyAgain(Date.now());
        alive();
        await sleep(3_000);
      } finally {
        await load.stop();
      }
      alive();

      // Every answer was a 201/202 or a 503 problem+json, and the outage was felt.
      assert.deepEqual(
        unexpectedAnswers(load, [201, 202, 503]),
        [],
        `answers other than 201, 202 and 503:\n${output()}`,
      );
      const unavailable = load.answers.filter((answer) => answer.status === 503);
      assert.ok(unavailable.length > 0, 'no request met the outage');
      assert.deepEqual([...new Set(unavailable.map((answer) => answer.problem))], ['database_unavailable']);
      assert.ok(load.created.size >= 30, `only ${String(load.created.size)} documents were created`);
      await assertNothingLostOrDoubled(world, load);
      const db = world.app.application.database.db;
      const ids = [...load.created.values()].map((document) => document.id);

      // Each document's signing reached the integrator's webhook under one delivery id (a repeat only with that id).
      const signedDeliveries = (deliveries: ReceivedDelivery[]) => {
        const ids = new Map<string, Set<string>>();
        for (const delivery of deliveries) {
          const documentId = (JSON.parse(delivery.body) as { data: { documentId: string } }).data.documentId;
          ids.set(documentId, (ids.get(documentId) ?? new Set()).add(String(delivery.headers['webhook-id'])));
        }
        return ids;
      };
      for (let round = 0; ; round++) {
        const heard = signedDeliveries(receiver.deliveries);
        if (ids.every((id) => heard.has(id))) break;
        assert.ok(round < 240, `${String(ids.filter((id) => !heard.has(id)).length)} documents never heard of`);
        await sleep(250);
      }
      const twice = [...signedDeliveries(receiver.deliveries)].filter(([, deliveryIds]) => deliveryIds.size > 1);
      assert.deepEqual(twice, [], 'an event was delivered under two delivery ids');
      assert.deepEqual(
        receiver.deliveries.filter((delivery) => delivery.standardError !== undefined),
        [],
      );

      // The worker's archive check took up its work: it has checked the documents made after the last outage.
      const last = await db
        .selectFrom('documents')
        .select('created_at')
        .where('id', 'in', ids)
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      for (let round = 0; ; round++) {
        const checked = await db.selectFrom('archive_verifier').select('recent_after').executeTakeFirst();
        if (checked !== undefined && checked.recent_after >= last.created_at) break;
        assert.ok(
          round < 120,
          `the archive check stopped at ${String(checked?.recent_after.toISOString())}\n${output()}`,
        );
        await sleep(250);
      }

      // The measure of recovery, for whoever reads the test's output.
      console.log(
        `created ${String(load.created.size)}, answers ${String(load.answers.length)}, ` +
          `503s ${String(unavailable.length)}, ready again after (ms) ${JSON.stringify(readyAfter)}`,
      );
    });
  },
);
