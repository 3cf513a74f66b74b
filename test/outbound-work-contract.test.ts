// The contract of outbound work (DESIGN §2, jobs; §5.2), run against each target through the real service and the
// DGII sandbox: an `ecf worker` child process is SIGKILLed in the middle of an attempt and, once its lease runs out,
// a new worker takes the item up and completes it; an error of our own (the archived bytes gone) is a counted attempt
// on the item's history and ends failed with its reason, never stuck. (The engine's own suite, src/platform/work,
// proves the lease rules one by one: a stale worker's late result, attempts that all died, Retry-After.)
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { postgresAvailable } from './support/backends.js';
import { officialXsdDir } from './support/dgii-files.js';
import { ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';
import { until } from './support/until.js';

const onPostgres = await postgresAvailable();
// Short DGII timeouts give short leases (an annulment's is 3 × (1 s + 2.5 s) + 5 s), long enough that a machine busy
// with other tests still answers within them.
// A commercial response's is 5 × (1 s + 2.5 s).
const timings = {
  DGII_CONNECT_TIMEOUT_MS: '1000',
  DGII_RESPONSE_TIMEOUT_MS: '2500',
  ANNULMENT_RETRY_BASE_MS: '50',
  ANNULMENT_MAX_ATTEMPTS: '3',
  COMMERCIAL_RESPONSE_RETRY_BASE_MS: '50',
  COMMERCIAL_RESPONSE_MAX_ATTEMPTS: '3',
  // A document send's: the floor of two DGII calls, 2 × (1 s + 2.5 s), rounded up.
  SEND_LEASE_SECONDS: '8',
  SEND_MAX_ATTEMPTS: '3',
  SEND_RETRY_BASE_MS: '50',
  ECF_XSD_DIR: officialXsdDir,
  RECEIVER_AUTH_MODE: 'optional',
  // A webhook delivery's is 2 × 3 s + 5 s.
  OUTBOUND_ALLOW_PRIVATE: 'true',
  WEBHOOKS_TIMEOUT_MS: '3000',
  WEBHOOKS_DISPATCH_INTERVAL_MS: '50',
};
const counterpartRnc = '999999907';

interface Annulment {
  id: string;
  status: string;
  attempts: number;
  dgii: { mensajes: { valor: string }[] };
}

describe(
  'outbound work contract: a killed worker, an error of our own',
  { skip: onPostgres ? false : 'needs PostgreSQL: the workers run in child processes', timeout: 240_000 },
  () => {
    let world: SendingWorld;
    let env: Record<string, string>;
    let appUrl: string;
    const workers: WorkerProcess[] = [];

    before(async () => {
      world = await startSendingWorld({ roles: { http: true, work: false, schedule: false }, env: timings });
      env = { ...world.processEnv(), ...timings };
      appUrl = await world.app.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      for (const worker of workers) {
        if (worker.child.exitCode === null && worker.child.signalCode === null) {
          worker.child.kill('SIGKILL');
          await worker.exited;
        }
      }
      await world.close();
    });

    async function worker(): Promise<WorkerProcess> {
      const started = startWorkerProcess(env);
      workers.push(started);
      await started.ready;
      return started;
    }
    async function stop(worker: WorkerProcess, signal: NodeJS.Signals): Promise<void> {
      worker.child.kill(signal);
      await worker.exited;
    }

    describe('document sends (e-CF to DGII)', () => {
      const db = () => world.app.application.database.db;
      const document = (id: string) =>
        db()
          .selectFrom('documents')
          .select(['status', 'track_id', 'send_attempts'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
      const events = async (id: string) =>
        db()
          .selectFrom('document_events')
          .select(['type', 'cause'])
          .where('document_id', '=', id)
          .where('type', 'like', 'dgii.%')
          .orderBy('id')
          .execute();
      const queued = (target: string, id: string) =>
        db()
          .selectFrom('outbound_work')
          .select(['lease_id', 'attempts'])
          .where('target', '=', target)
          .where('item_id', '=', id)
          .executeTakeFirst();

      it('a worker killed mid-send: after its lease the document is taken up, found at DGII by asking, and there once', async () => {
        // DGII answers the send after 0.8 s: the worker is killed while it waits.
        assert.equal(
          (await world.sandbox.admin('POST', '/faults', { service: 'recepcion', mode: 'slow', delayMs: 800, count: 1 }))
            .status,
          201,
        );
        const doomed = await worker();
        const created = await world.create(ecfDocuments['31']);
        await world.send(created.id);
        await until(
          () => queued('document.send', created.id),
          (row) => row?.lease_id != null,
          'the send under way',
        );
        await sleep(400);
        await stop(doomed, 'SIGKILL');
        await worker();
        const received = await until(
          () => document(created.id),
          (row) => row.status !== 'queued' && row.status !== 'sending',
          'the send taken up and settled',
          60_000,
        );
        assert.equal(received.status, 'in_process', JSON.stringify(received));
        const timeline = await events(created.id);
        // The killed worker's attempt, then the new worker's, which asks DGII first. On a machine busy enough that
        // an attempt outlasts its lease, the lease runs out again and the next attempt asks again: each one after
        // the first says so.
        const taken = timeline.findIndex((event) => event.type !== 'dgii.sending');
        const sendings = timeline.slice(0, taken);
        assert.ok(taken >= 2 && sendings.length >= 2, JSON.stringify(timeline));
        for (const retaken of sendings.slice(1)) assert.match(retaken.cause, /^DGII may already have it/);
        // Asked first: DGII had it (the bytes had reached it), or had nothing (the kill came first) and it was sent.
        const answer = timeline.at(-1)?.cause ?? '';
        assert.match(answer, /^DGII (already had it|received it): trackId /);
        if (answer.startsWith('DGII received it'))
          assert.deepEqual(timeline.map((event) => event.type).slice(taken), ['dgii.resolved', 'dgii.received']);
        // Exactly once at DGII, counted at the sandbox.
        const arrivals = (await world.sandbox.admin('GET', `/arrivals?encf=${created.eNCF}`)).body as unknown[];
        assert.equal(arrivals.length, 1);
        assert.equal(await queued('document.send', created.id), undefined);
        assert.ok((await queued('document.poll', created.id)) !== undefined, 'its verdict is asked for');
        // Asked now through the API (the poll claimed and settled like the poller's): DGII's verdict.
        const verdict = await until(
          async () =>
            (await world.call('POST', `/api/v1/documentos/${created.id}/actualizar-estado`)).json<{
              data: { status: string };
            }>().data.status,
          (status) => status !== 'in_process',
          'the verdict',
        );
        assert.equal(verdict, 'accepted');
        assert.equal(await queued('document.poll', created.id), undefined);
      });

      it('an error of our own (the signed XML gone from the archive) is a counted attempt and ends send_failed with its reason', async () => {
        const created = await world.create(ecfDocuments['31']);
        const artefact = await db()
          .selectFrom('document_artefacts')
          .select('blob_key')
          .where('document_id', '=', created.id)
          .where('kind', '=', 'signed-xml')
          .executeTakeFirstOrThrow();
        const { storage } = world.app.config;
        assert.equal(storage.kind, 'fs');
        rmSync(join(storage.root, ...artefact.blob_key.split('/')));
        await world.send(created.id);
        const failed = await until(
          () => document(created.id),
          (row) => row.status === 'send_failed',
          'the send failed',
        );
        assert.equal(failed.send_attempts, 3);
        const timeline = await events(created.id);
        assert.deepEqual(
          timeline.map((event) => event.type),
          ['dgii.sending', 'dgii.not_taken', 'dgii.sending', 'dgii.not_taken', 'dgii.sending', 'dgii.send_failed'],
        );
        assert.match(
          timeline[1]?.cause ?? '',
          /^attempt 1 failed \(an error of this service: .+\); DGII did not take it/,
        );
        assert.match(
          timeline.at(-1)?.cause ?? '',
          /^attempt 3 of 3 failed \(an error of this service: .+\); no attempts left/,
        );
        const jobs = (await world.call('GET', '/api/v1/trabajos-fallidos?open=true&limit=100')).json<{
          data: { documentId: string; reason: string }[];
        }>().data;
        assert.match(jobs.find((job) => job.documentId === created.id)?.reason ?? '', /^an error of this service: /);
        const arrivals = (await world.sandbox.admin('GET', `/arrivals?encf=${created.eNCF}`)).body as unknown[];
        assert.equal(arrivals.length, 0);
        // Failed, not stuck: reintentar queues it again, its attempts counted from none.
        assert.equal((await world.call('POST', `/api/v1/documentos/${created.id}/reintentar`)).statusCode, 202);
        assert.deepEqual(await queued('document.send', created.id), { lease_id: null, attempts: 0 });
        for (const current of workers)
          if (current.child.exitCode === null && current.child.signalCode === null) await stop(current, 'SIGTERM');
      });
    });
    describe('annulments (ANECF to DGII)', () => {
      const burn = async (type: string, count: number) => {
        const taken: string[] = [];
        for (let i = 0; i < count; i++) {
          const number = await world.app.application.services.sequences.takeNumber(
            world.companyId,
            type,
            'the contract test burned it',
          );
          assert.ok(number.ok);
          taken.push(number.value.encf);
        }
        return taken;
      };
      const request = async (type: string) => {
        const burned = await burn(type, 2);
        const response = await world.call('POST', '/api/v1/secuencias/anulaciones', {
          ranges: [{ ecfType: type, from: burned[0], to: burned[1] }],
        });
        assert.equal(response.statusCode, 202, response.body);
        return response.json<{ data: Annulment }>().data.id;
      };
      const read = async (id: string) =>
        (await world.call('GET', `/api/v1/secuencias/anulaciones/${id}`)).json<{ data: Annulment }>().data;

      it('a worker killed mid-attempt: after its lease the annulment is taken up and accepted, its numbers annulled', async () => {
        // DGII answers after 0.8 s: the worker is killed while it waits. The sandbox voids the numbers anyway, so the
        // second attempt is refused as "already annulled", which is the success it is.
        assert.equal(
          (
            await world.sandbox.admin('POST', '/faults', {
              service: 'anulacionrangos',
              mode: 'slow',
              delayMs: 800,
              count: 1,
            })
          ).status,
          201,
        );
        const first = await worker();
        const id = await request('44');
        await until(
          () => read(id),
          (annulment) => annulment.status === 'sending',
          'the first attempt under way',
        );
        await stop(first, 'SIGKILL');
        await sleep(900);
        await worker();
        const settled = await until(
          () => read(id),
          (annulment) => annulment.status !== 'pending' && annulment.status !== 'sending',
          'the annulment settled',
          90_000,
        );
        assert.equal(settled.status, 'accepted', JSON.stringify(settled));
        assert.ok(settled.attempts >= 2, JSON.stringify(settled));
        const ranges = (await world.call('GET', '/api/v1/secuencias/rangos?ecfType=44')).json<{
          data: { availability: { annulled: number; burned: number } }[];
        }>().data;
        assert.deepEqual(
          ranges.map((range) => [range.availability.annulled, range.availability.burned]),
          [[2, 0]],
        );
        // DGII voided them once.
        const arrivals = (await world.sandbox.admin('GET', '/arrivals?service=anulacionrangos')).body as {
          outcome: string;
        }[];
        assert.equal(arrivals.filter((arrival) => arrival.outcome === 'voided:2').length, 1, JSON.stringify(arrivals));

        // Its answer lost (the attempt counted, DGII's "processed" never recorded): the repeat is refused because the
        // numbers are annulled already, and that refusal is the success it is. The numbers are not given back.
        const db = world.app.application.database.db;
        await db.updateTable('annulments').set({ status: 'sending', final_at: null }).where('id', '=', id).execute();
        await db
          .insertInto('outbound_work')
          .values({
            target: 'annulment.send',
            item_id: id,
            environment: 'TEST',
            due_at: new Date(),
            lease_id: null,
            attempts: 2,
          })
          .execute();
        const repeated = await until(
          () => read(id),
          (annulment) => annulment.status !== 'sending' && annulment.status !== 'pending' && annulment.attempts >= 3,
          'the repeat settled',
        );
        assert.equal(repeated.status, 'accepted', JSON.stringify(repeated));
        assert.ok(
          repeated.dgii.mensajes.some((message) => message.valor.endsWith(': ya anulada')),
          JSON.stringify(repeated.dgii),
        );
        assert.equal(
          repeated.dgii.mensajes.at(-1)?.valor,
          'An earlier attempt of this annulment reached DGII: its numbers are annulled.',
        );
        const after = (await world.call('GET', '/api/v1/secuencias/rangos?ecfType=44')).json<{
          data: { availability: { annulled: number; burned: number } }[];
        }>().data;
        assert.deepEqual(
          after.map((range) => [range.availability.annulled, range.availability.burned]),
          [[2, 0]],
        );
      });

      it('an error of our own (the signed ANECF gone from the archive) is a counted attempt and ends failed with its reason', async () => {
        const id = await request('43');
        const row = await world.app.application.database.db
          .selectFrom('annulments')
          .select('blob_key')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const { storage } = world.app.config;
        assert.equal(storage.kind, 'fs');
        rmSync(join(storage.root, ...row.blob_key.split('/')));
        const settled = await until(
          () => read(id),
          (annulment) => annulment.status === 'failed',
          'the annulment failed',
        );
        assert.equal(settled.attempts, 3);
        assert.match(
          settled.dgii.mensajes[0]?.valor ?? '',
          /an error of this service: annulment anl_\w+: its signed ANECF is missing from the archive/,
        );
        // Failed, not stuck: reintentar takes it again.
        assert.equal((await world.call('POST', `/api/v1/secuencias/anulaciones/${id}/reintentar`)).statusCode, 202);
        const queued = await world.app.application.database.db
          .selectFrom('outbound_work')
          .select(['attempts'])
          .where('target', '=', 'annulment.send')
          .where('item_id', '=', id)
          .executeTakeFirst();
        assert.ok(queued !== undefined);
      });
    });
    describe('commercial responses (ACECF to the issuer and to DGII)', () => {
      interface Delivery {
        target: string;
        status: string;
        attempts: number;
        lastError: string | null;
      }
      const db = () => world.app.application.database.db;
      const deliveries = async (id: string) => {
        const view = (await world.call('GET', `/api/v1/recibidos/${id}`)).json<{
          data: { commercialResponse: { deliveries: Delivery[] } | null };
        }>().data;
        return view.commercialResponse?.deliveries ?? [];
      };
      const settled = (list: Delivery[]) =>
        list.length === 2 &&
        list.every((delivery) => delivery.status === 'delivered' || delivery.status === 'exhausted');

      /** The counterpart issues an e-CF to our company and sends it to our receiver; we approve it. */
      async function approveOne(): Promise<string> {
        const base = `${appUrl}/testecf/${issuerRnc}`;
        const response = await fetch(`${world.sandbox.url}/testecf/emisorreceptor/api/emision/emisioncomprobantes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ rnc: issuerRnc, tipoEncf: 'E31', urlRecepcion: base, urlAutenticacion: base }),
        });
        const sent = (await response.json()) as { encf: string; estado: string; mensajes: string[] };
        assert.equal(sent.estado, 'arecf_valid', sent.mensajes.join(' | '));
        const list = (await world.call('GET', `/api/v1/recibidos?issuerRnc=${counterpartRnc}&limit=100`)).json<{
          data: { id: string; eNCF: string }[];
        }>().data;
        const id = list.find((entry) => entry.eNCF === sent.encf)?.id;
        assert.ok(id !== undefined);
        const approved = await world.call('POST', `/api/v1/recibidos/${id}/respuesta-comercial`, {
          decision: 'approved',
        });
        assert.ok(approved.statusCode === 201 || approved.statusCode === 202, approved.body);
        return id;
      }

      it('a worker killed mid-attempt: after its lease the delivery to DGII is taken up and delivered', async () => {
        const first = workers.at(-1);
        if (first !== undefined) await stop(first, 'SIGTERM');
        // DGII answers after 0.8 s: the worker is killed while it waits.
        assert.equal(
          (
            await world.sandbox.admin('POST', '/faults', {
              service: 'aprobacioncomercial',
              mode: 'slow',
              delayMs: 800,
              count: 1,
            })
          ).status,
          201,
        );
        const doomed = await worker();
        const id = await approveOne();
        await until(
          () =>
            db()
              .selectFrom('outbound_work')
              .select(['lease_id'])
              .where('target', '=', 'acecf.dgii')
              .where('item_id', '=', id)
              .executeTakeFirst(),
          (row) => row?.lease_id != null,
          'the delivery to DGII under way',
        );
        await stop(doomed, 'SIGKILL');
        await worker();
        const final = await until(() => deliveries(id), settled, 'the deliveries settled', 60_000);
        assert.deepEqual(final.map((delivery) => [delivery.target, delivery.status]).sort(), [
          ['dgii', 'delivered'],
          ['issuer', 'delivered'],
        ]);
        assert.ok((final.find((delivery) => delivery.target === 'dgii')?.attempts ?? 0) >= 2, JSON.stringify(final));
        assert.equal(
          await db().selectFrom('outbound_work').select('item_id').where('item_id', '=', id).executeTakeFirst(),
          undefined,
        );
      });

      it('an error of our own (the signed ACECF gone from the archive) is a counted attempt and ends exhausted with its reason', async () => {
        const current = workers.at(-1);
        if (current !== undefined) await stop(current, 'SIGTERM');
        const id = await approveOne();
        const artefact = await db()
          .selectFrom('received_artefacts')
          .select('blob_key')
          .where('received_document_id', '=', id)
          .where('kind', '=', 'acecf-xml')
          .executeTakeFirstOrThrow();
        const { storage } = world.app.config;
        assert.equal(storage.kind, 'fs');
        rmSync(join(storage.root, ...artefact.blob_key.split('/')));
        await worker();
        const final = await until(() => deliveries(id), settled, 'the deliveries settled');
        for (const delivery of final) {
          assert.equal(delivery.status, 'exhausted');
          assert.equal(delivery.attempts, 3);
          assert.match(delivery.lastError ?? '', /^an error of this service: /);
        }
      });
    });
    describe('webhook deliveries', () => {
      let receiver: WebhookReceiver;
      before(async () => {
        receiver = await startWebhookReceiver();
      });
      after(async () => {
        await receiver.close();
      });
      const db = () => world.app.application.database.db;

      async function endpointAt(path: string) {
        const { apiKey } = await world.app.issueKey(world.companyId, ['webhooks:manage']);
        const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
          world.app.app.inject({
            method,
            url,
            headers: { 'x-api-key': apiKey },
            ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
          });
        const created = await call('POST', '/api/v1/notificaciones', {
          url: `${receiver.url}${path}`,
          events: ['webhook.test'],
        });
        assert.equal(created.statusCode, 201, created.body);
        const { id, secret } = created.json<{ data: { id: string; secret: string } }>().data;
        receiver.secretFor.set(path, secret);
        return { id, call };
      }
      const delivery = async (call: Awaited<ReturnType<typeof endpointAt>>['call'], id: string) =>
        (await call('GET', `/api/v1/notificaciones/entregas?limit=100`))
          .json<{
            data: {
              deliveryId: string;
              status: string;
              attempts: { statusCode: number | null; error: string | null }[];
            }[];
          }>()
          .data.find((entry) => entry.deliveryId === id);

      it('a worker killed mid-attempt: after its lease the delivery is taken up and succeeds, under the same delivery id', async () => {
        for (const current of workers)
          if (current.child.exitCode === null && current.child.signalCode === null) await stop(current, 'SIGTERM');
        const { id: endpointId, call } = await endpointAt('/killed');
        // The first POST is answered after 0.8 s: the worker is killed while it waits.
        let calls = 0;
        receiver.answer = (entry) =>
          entry.path === '/killed' && ++calls === 1
            ? { status: 200, body: 'late', delayMs: 800 }
            : { status: 200, body: 'ok' };
        const doomed = await worker();
        const tested = await call('POST', `/api/v1/notificaciones/${endpointId}/prueba`);
        assert.equal(tested.statusCode, 202, tested.body);
        const deliveryId = tested.json<{ data: { deliveryId: string } }>().data.deliveryId;
        await until(
          () =>
            db()
              .selectFrom('outbound_work')
              .select(['lease_id'])
              .where('target', '=', 'webhook.delivery')
              .where('item_id', '=', deliveryId)
              .executeTakeFirst(),
          (row) => row?.lease_id != null,
          'the delivery under way',
        );
        await stop(doomed, 'SIGKILL');
        await worker();
        const settled = await until(
          () => delivery(call, deliveryId),
          (entry) => entry?.status === 'succeeded',
          'the delivery succeeded',
          60_000,
        );
        // The killed attempt recorded nothing; the one after the lease succeeded.
        assert.equal(settled?.attempts.at(-1)?.statusCode, 200);
        const arrived = receiver.deliveries.filter((entry) => entry.path === '/killed');
        assert.ok(arrived.length >= 1 && arrived.every((entry) => entry.headers['webhook-id'] === deliveryId));
      });

      it('an error of our own (a signing secret that cannot be opened) is a counted attempt with its reason, retried on schedule', async () => {
        const { id: endpointId, call } = await endpointAt('/sealed');
        await db()
          .updateTable('webhook_endpoints')
          .set({ secret_sealed: 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA' })
          .where('id', '=', endpointId)
          .execute();
        const tested = await call('POST', `/api/v1/notificaciones/${endpointId}/prueba`);
        const deliveryId = tested.json<{ data: { deliveryId: string } }>().data.deliveryId;
        const failed = await until(
          () => delivery(call, deliveryId),
          (entry) => entry?.status === 'failed',
          'the delivery failed',
        );
        assert.ok(failed !== undefined);
        assert.equal(failed.attempts.length, 1);
        assert.match(failed.attempts[0]?.error ?? '', /^an error of this service: sealed secret could not be opened/);
        const queued = await db()
          .selectFrom('outbound_work')
          .select(['attempts', 'lease_id'])
          .where('item_id', '=', deliveryId)
          .executeTakeFirstOrThrow();
        assert.deepEqual(queued, { attempts: 1, lease_id: null });
        assert.equal(receiver.deliveries.filter((entry) => entry.path === '/sealed').length, 0);
      });
    });
  },
);
