// Crash safety of delivering to a buyer's receiver (DESIGN §5.3): the worker, an `ecf worker` process of its own, is
// SIGKILLed in the middle of its post of an e-CF to the buyer's receiver (the sandbox's counterpart), and another
// worker is started. A receiver has no status query, so the new worker takes the delivery up once the dead one's
// lease runs out and simply posts again: a receiver that never got the first post answers Estado 0; one that got it
// answers Estado 1 motivo 3 ("Envío duplicado"), which closes the delivery as delivered, with a reason saying so.
// Either way the document shows one delivery: one timeline entry, one domain event, and the ARECF kept as an artefact
// version that exists. The killed worker reaches DGII (and so the counterpart, which DGII's directory lists at DGII's
// own address) through a proxy that tells the test when the e-CF post goes by and keeps its answer back; it is killed
// twice: while the receiver is still taking the post (made slow), and once the receiver has kept the e-CF and
// answered, before the worker read the answer. A short lease makes each take seconds.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { counterpartRnc } from '../src/sandbox/counterpart/identity.js';
import { postgresAvailable } from './support/backends.js';
import { officialXsdDir } from './support/dgii-files.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { startHeldAnswerProxy, type HeldAnswerProxy } from './support/held-answer-proxy.js';
import { startSendingWorld, type SendingWorld, type SentDocument } from './support/sending-kit.js';
import { until } from './support/until.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const onPostgres = await postgresAvailable();

// The delivery's lease is 5 × (connect + response) + 3 × SMTP = 5 × 1.7 s + 0.3 s = 8.8 s (buyer-delivery.module.ts):
// a killed worker's delivery is taken up again after it. The slow post (1 s) fits inside the response timeout, and the
// kill lands 0.2 s into it, so the worker is still waiting on it when it dies, not giving up on its own.
const timings = {
  // The sandbox's counterpart, the buyer's receiver, listens on loopback.
  OUTBOUND_ALLOW_PRIVATE: 'true',
  ECF_XSD_DIR: officialXsdDir,
  DGII_CONNECT_TIMEOUT_MS: '200',
  DGII_RESPONSE_TIMEOUT_MS: '1500',
  SMTP_TIMEOUT_MS: '100',
  DELIVERY_RETRY_BASE_MS: '100',
};
const slowPostMs = 1_000;
const ecfPost = 'POST /testecf/emisorreceptor/fe/recepcion/api/ecf';

interface Delivered {
  id: string;
  eNCF: string;
  status: string;
  entrega: {
    canal: string | null;
    status: string;
    attempts: number;
    reason: string | null;
    destino: string | null;
    acuseRecibo: { estado: string; codigoMotivoNoRecibido: string | null; version: number } | null;
  } | null;
  artefacts: { type: string; version: number; sha256: string }[];
}

const duplicateReason = /already had it \(ARECF Estado 1, motivo 3 "Envío duplicado"\)/;

function alive(worker: WorkerProcess | undefined): worker is WorkerProcess {
  return worker !== undefined && worker.child.exitCode === null && worker.child.signalCode === null;
}

describe(
  "crash safety: the worker is SIGKILLed mid-post of an e-CF to the buyer's receiver",
  {
    skip: onPostgres
      ? false
      : 'needs PostgreSQL at 127.0.0.1:5432: the worker runs in child processes, which cannot share embedded PGlite',
    timeout: 180_000,
  },
  () => {
    let world: SendingWorld;
    const proxies: HeldAnswerProxy[] = [];
    const workers: WorkerProcess[] = [];

    before(async () => {
      // This process serves HTTP and polls for DGII's verdicts; the workers (sending and delivering) run apart.
      world = await startSendingWorld({ roles: { http: true, work: false, schedule: true }, env: timings });
    });
    after(async () => {
      for (const worker of workers.filter(alive)) {
        worker.child.kill('SIGKILL');
        await worker.exited;
      }
      for (const proxy of proxies) await proxy.close();
      await world.close();
    });

    const db = () => world.app.application.database.db;
    const read = async (id: string) =>
      (await world.call('GET', `/api/v1/documentos/${id}`)).json<{ data: Delivered }>().data;
    const arrivals = async (eNCF: string) =>
      (
        (await world.sandbox.admin('GET', `/arrivals?service=emisorreceptor&encf=${eNCF}`)).body as {
          outcome: string;
        }[]
      ).map((arrival) => arrival.outcome);

    function startWorker(env: Record<string, string>): WorkerProcess {
      const worker = startWorkerProcess(env);
      workers.push(worker);
      return worker;
    }

    async function kill(worker: WorkerProcess): Promise<void> {
      worker.child.kill('SIGKILL');
      assert.equal((await worker.exited).signal, 'SIGKILL');
    }

    /** A worker that reaches DGII, and the counterpart, through a proxy of its own (which holds the e-CF post's answer). */
    async function startWorkerBehindProxy(
      env: Record<string, string>,
    ): Promise<{ worker: WorkerProcess; proxy: HeldAnswerProxy }> {
      const sandbox = new URL(world.sandbox.url);
      const proxy = await startHeldAnswerProxy({ host: sandbox.hostname, port: Number(sandbox.port) }, ecfPost);
      proxies.push(proxy);
      const worker = startWorker({
        ...env,
        DGII_BASE_URL: proxy.url,
        DGII_FC_BASE_URL: proxy.url,
        DGII_STATUS_BASE_URL: proxy.url,
      });
      return { worker, proxy };
    }

    /** Resolves with `promise`, or fails after `ms`. */
    function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
      return Promise.race([
        promise,
        sleep(ms, undefined, { ref: false }).then(() => assert.fail(`${what}: not within ${String(ms)} ms`)),
      ]);
    }

    /** A type 31 to the counterpart, sent and accepted by DGII (a worker must be running). */
    async function issueAccepted(): Promise<SentDocument> {
      const body = structuredClone(ecfDocuments['31']) as { Encabezado: Record<string, Record<string, unknown>> };
      body.Encabezado['Comprador'] = { ...body.Encabezado['Comprador'], RNCComprador: counterpartRnc };
      const document = await world.create(body);
      await world.send(document.id);
      const settled = await world.untilSettled(document.id);
      assert.equal(settled.status, 'accepted', JSON.stringify(settled.dgii));
      return settled;
    }

    /** The kill left the delivery where a dead worker leaves it: pending, its queue row under its lease, attempt 1. */
    async function assertHeldByTheDead(documentId: string): Promise<void> {
      const held = await db()
        .selectFrom('outbound_work')
        .select(['lease_id', 'attempts'])
        .where('target', '=', 'buyer.delivery')
        .where('item_id', '=', documentId)
        .executeTakeFirst();
      // Its timeline tells why when not (an attempt the worker settled before the kill).
      const timeline = await db()
        .selectFrom('document_events')
        .select(['type', 'cause'])
        .where('document_id', '=', documentId)
        .orderBy('id')
        .execute();
      assert.ok(held?.lease_id != null, `the delivery is not held: ${JSON.stringify({ held, timeline })}`);
      assert.equal(held.attempts, 1);
      assert.equal((await read(documentId)).entrega?.status, 'pending');
    }

    /** The delivery after the kill: settled by the next worker, and recorded as delivered exactly once. */
    async function deliveredOnce(document: SentDocument, worker: WorkerProcess): Promise<Delivered['entrega'] & {}> {
      const delivered = await until(
        () => read(document.id),
        (seen) => seen.entrega !== null && seen.entrega.status !== 'pending',
        `the delivery of ${document.id} after the kill`,
        60_000,
      );
      const { entrega } = delivered;
      assert.ok(entrega !== null);
      assert.equal(entrega.status, 'delivered', `${JSON.stringify(entrega)}\n${worker.output()}`);
      assert.equal(entrega.canal, 'receptor');
      assert.equal(entrega.attempts, 2, 'the killed attempt counts');
      assert.match(entrega.destino ?? '', /\/testecf\/emisorreceptor\/fe\/recepcion\/api\/ecf$/);
      assert.ok(entrega.acuseRecibo !== null);

      // One timeline entry, and no failed attempt made up for the dead worker's.
      const timeline = await db()
        .selectFrom('document_events')
        .select(['type', 'cause'])
        .where('document_id', '=', document.id)
        .where('type', 'like', 'delivery.%')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        timeline.map((event) => event.type),
        ['delivery.delivered'],
        JSON.stringify(timeline),
      );
      assert.match(timeline[0]?.cause ?? '', /^delivery by receptor, attempt 2: delivered to http/);
      // One domain event (the webhooks' source), none of a failure.
      const events = await db()
        .selectFrom('domain_events')
        .select(['type', 'payload'])
        .where('company_id', '=', world.companyId)
        .where('type', 'in', ['document.delivered', 'document.not_received', 'document.delivery_failed'])
        .execute();
      const about = events.filter((event) => (event.payload as { documentId?: string }).documentId === document.id);
      assert.deepEqual(
        about.map((event) => event.type),
        ['document.delivered'],
      );
      assert.deepEqual(
        {
          attempts: (about[0]?.payload as { attempts?: number }).attempts,
          estado: (about[0]?.payload as { estado?: string }).estado,
        },
        { attempts: 2, estado: entrega.acuseRecibo.estado },
      );
      const queued = await db()
        .selectFrom('outbound_work')
        .select('item_id')
        .where('target', '=', 'buyer.delivery')
        .where('item_id', '=', document.id)
        .execute();
      assert.deepEqual(queued, [], 'the delivery left the queue');

      // The ARECF the entrega names is an arecf-xml version that exists, its archived bytes intact.
      const { version } = entrega.acuseRecibo;
      const summaries = delivered.artefacts.filter((artefact) => artefact.type === 'arecf-xml');
      assert.deepEqual(
        summaries.map((artefact) => artefact.version),
        [version],
      );
      const artefact = await world.call(
        'GET',
        `/api/v1/documentos/${document.id}/artefactos/arecf-xml?version=${String(version)}`,
      );
      assert.equal(artefact.statusCode, 200, artefact.body);
      assert.equal(artefact.headers['x-content-sha256'], summaries[0]?.sha256);
      assert.ok(artefact.body.includes(`<eNCF>${document.eNCF}</eNCF>`), artefact.body);
      assert.ok(artefact.body.includes(`<Estado>${entrega.acuseRecibo.estado}</Estado>`), artefact.body);
      assert.ok(alive(worker), `the worker that delivered stopped:\n${worker.output()}`);
      return entrega;
    }

    it('posts again when the receiver was still taking the killed post, and records one delivery', async () => {
      const env = world.processEnv();
      // Only the e-CF post is slow, once: the directory, seed and token answer at once, and so does the next post.
      const slow = await world.sandbox.admin('POST', '/faults', {
        service: 'emisorreceptor.recepcion',
        mode: 'slow',
        delayMs: slowPostMs,
        count: 1,
      });
      assert.equal(slow.status, 201, JSON.stringify(slow.body));
      const faultId = (slow.body as { id: number }).id;
      const { worker: first, proxy } = await startWorkerBehindProxy(env);
      const document = await issueAccepted();

      // Killed a moment into the counterpart's slow handling of the post (the rest of its bytes have gone by).
      await within(proxy.posted, 30_000, 'the post of the e-CF to the counterpart');
      await sleep(slowPostMs / 5);
      await kill(first);
      // Mid-post: the counterpart had not answered (nothing logged for this e-NCF yet), but had taken it up.
      assert.deepEqual(await arrivals(document.eNCF), []);
      await until(
        async () =>
          ((await world.sandbox.admin('GET', '/faults')).body as { id: number; remaining: number | null }[]).find(
            (fault) => fault.id === faultId,
          )?.remaining,
        (remaining) => remaining === 0,
        'the counterpart to take the slow post up',
        10_000,
      );
      await assertHeldByTheDead(document.id);

      const second = startWorker(env);
      const entrega = await deliveredOnce(document, second);
      // The killed post reached the counterpart or not, by the time the sandbox woke; the record shows which.
      const seen = await arrivals(document.eNCF);
      if (seen.length === 1) {
        assert.deepEqual(seen, ['received']);
        assert.deepEqual(entrega.acuseRecibo, { ...entrega.acuseRecibo, estado: '0', codigoMotivoNoRecibido: null });
        assert.equal(entrega.reason, null);
      } else {
        assert.deepEqual(seen, ['received', 'not_received:duplicate']);
        assert.deepEqual(entrega.acuseRecibo, { ...entrega.acuseRecibo, estado: '1', codigoMotivoNoRecibido: '3' });
        assert.match(entrega.reason ?? '', duplicateReason);
      }
      await kill(second);
    });

    it('closes as delivered, once, a post the receiver kept but whose answer the killed worker never read', async () => {
      const env = world.processEnv();
      const { worker: first, proxy } = await startWorkerBehindProxy(env);
      const document = await issueAccepted();
      // The counterpart answered (so it kept the e-CF and logged it), and the worker still waits for that answer.
      const answeredAfterMs = await within(proxy.answerHeld, 30_000, "the counterpart's answer to the post");
      await kill(first);
      assert.deepEqual(await arrivals(document.eNCF), ['received']);
      assert.equal(proxy.held(), 1);
      process.stdout.write(`# the counterpart answered the held post ${String(answeredAfterMs)} ms after it\n`);
      await assertHeldByTheDead(document.id);

      const second = startWorker(env);
      const entrega = await deliveredOnce(document, second);
      assert.deepEqual(await arrivals(document.eNCF), ['received', 'not_received:duplicate']);
      assert.deepEqual(entrega.acuseRecibo, { ...entrega.acuseRecibo, estado: '1', codigoMotivoNoRecibido: '3' });
      assert.match(entrega.reason ?? '', duplicateReason);
      assert.ok(entrega.destino?.startsWith(world.sandbox.url), entrega.destino ?? '');
    });
  },
);
