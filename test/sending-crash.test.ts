// Crash safety of sending (DESIGN §5.2): the worker runs as its own `ecf worker` process and is SIGKILLed at random
// moments while 200 documents are being sent, then restarted; at the end one worker runs undisturbed. Nothing is lost
// (every document ends accepted, with its trackId), nothing is sent twice (each e-NCF reached DGII's reception
// exactly once), and the kills landed mid-send (documents a killed worker had marked `sending` were taken up by
// asking DGII about their e-NCF first). A short lease makes recovery take seconds. Then a dead worker's lease guards
// its document even when its send is due sooner: it is taken up when the lease runs out, not before.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { documentSends } from '../src/modules/sending/index.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { postgresAvailable } from './support/backends.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const onPostgres = await postgresAvailable();
const documents = 200;
const kills = 6;

// Two DGII calls of at most 1 + 2.5 s fit in the 8 s lease; a killed worker's documents fall due when it runs out.
const timings = {
  DGII_CONNECT_TIMEOUT_MS: '1000',
  DGII_RESPONSE_TIMEOUT_MS: '2500',
  SEND_LEASE_SECONDS: '8',
  SEND_RETRY_BASE_MS: '200',
  SEND_MAX_ATTEMPTS: '30',
};

async function within<T>(what: string, promise: Promise<T>, ms: number, detail: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} took over ${String(ms)} ms\n${detail()}`));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe(
  `crash safety: the worker is SIGKILLed ${String(kills)} times during ${String(documents)} sends`,
  {
    skip: onPostgres
      ? false
      : 'needs PostgreSQL at 127.0.0.1:5432: the worker runs in child processes, which cannot share embedded PGlite',
    timeout: 300_000,
  },
  () => {
    let world: SendingWorld;
    let worker: WorkerProcess | undefined;

    before(async () => {
      // This process serves HTTP and polls for verdicts (scheduler); the worker runs apart, to be killed.
      world = await startSendingWorld({ roles: { http: true, work: false, schedule: true }, env: timings });
      // Slow answers keep requests in flight, so kills land while bytes are on their way.
      const slow = await world.sandbox.admin('POST', '/faults', {
        service: 'recepcion',
        mode: 'slow',
        delayMs: 300,
        probability: 0.3,
      });
      assert.equal(slow.status, 201, JSON.stringify(slow.body));
    });
    after(async () => {
      if (worker !== undefined && worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
        await worker.exited;
      }
      await world.close();
    });

    it('loses nothing, sends nothing twice, and ends every document accepted', async () => {
      const env = world.processEnv();
      const db = world.app.application.database.db;
      const ids: string[] = [];

      // The integrator: creates the documents and asks for each to be sent, a few at a time.
      const produce = async () => {
        for (let batch = 0; batch < documents; batch += 4) {
          const created = await Promise.all(
            Array.from({ length: Math.min(4, documents - batch) }, () => world.create(ecfDocuments['31'])),
          );
          for (const document of created) {
            await world.send(document.id);
            ids.push(document.id);
          }
        }
      };
      const producing = produce();

      // The chaos: wait for a worker to be up and sending, kill it at a random moment, start another.
      const killedWith: (NodeJS.Signals | null)[] = [];
      for (let kill = 0; kill < kills; kill++) {
        const current = startWorkerProcess(env);
        worker = current;
        await within('a worker start', current.ready, 60_000, current.output);
        await sleep(300 + Math.random() * 1_200);
        // A kill lands mid-send when the worker holds a document; give it a moment to take one.
        for (let wait = 0; wait < 50; wait++) {
          const held = await db
            .selectFrom('documents')
            .select('id')
            .where('status', '=', 'sending')
            .where('send_lease_id', 'is not', null)
            .executeTakeFirst();
          if (held !== undefined) break;
          await sleep(100);
        }
        current.child.kill('SIGKILL');
        killedWith.push((await current.exited).signal);
      }
      assert.deepEqual(
        killedWith,
        Array.from({ length: kills }, () => 'SIGKILL'),
      );

      // The last worker runs undisturbed until every document is final.
      const last = startWorkerProcess(env);
      worker = last;
      await producing;
      assert.equal(ids.length, documents);
      const deadline = Date.now() + 150_000;
      for (;;) {
        const open = await db
          .selectFrom('documents')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('id', 'in', ids)
          .where('status', 'not in', ['accepted', 'accepted_conditional', 'rejected'])
          .executeTakeFirstOrThrow();
        if (open.count === 0) break;
        if (Date.now() > deadline) {
          const states = await db
            .selectFrom('documents')
            .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
            .where('id', 'in', ids)
            .groupBy('status')
            .execute();
          throw new Error(`${String(open.count)} documents are not final: ${JSON.stringify(states)}\n${last.output()}`);
        }
        await sleep(250);
      }
      assert.equal(last.child.exitCode, null, `the last worker stopped:\n${last.output()}`);

      // Nothing lost: every document accepted, with the trackId DGII gave it.
      const rows = await db
        .selectFrom('documents')
        .select(['id', 'encf', 'status', 'track_id', 'send_lease_id'])
        .where('id', 'in', ids)
        .execute();
      assert.equal(rows.length, documents);
      assert.deepEqual([...new Set(rows.map((row) => row.status))], ['accepted']);
      for (const row of rows) {
        assert.match(row.track_id ?? '', /^[0-9a-f-]{36}$/, `${row.encf} has no trackId`);
        assert.equal(row.send_lease_id, null, `${row.encf} is still held`);
      }

      // Nothing twice: each e-NCF reached DGII's reception exactly once, and its trackId is the one DGII gave.
      const arrivals = (await world.sandbox.admin('GET', '/arrivals?service=recepcion')).body as {
        encf: string | null;
        track_id: string | null;
        outcome: string;
      }[];
      const perEncf = new Map<string, { count: number; trackId: string | null }>();
      for (const arrival of arrivals) {
        if (arrival.encf === null) continue;
        const seen = perEncf.get(arrival.encf);
        perEncf.set(arrival.encf, {
          count: (seen?.count ?? 0) + 1,
          trackId: arrival.track_id ?? seen?.trackId ?? null,
        });
      }
      const twice = [...perEncf].filter(([, seen]) => seen.count > 1).map(([encf]) => encf);
      assert.deepEqual(twice, [], 'an e-NCF reached DGII more than once');
      for (const row of rows) {
        assert.equal(
          perEncf.get(row.encf)?.count,
          1,
          `${row.encf} reached DGII ${String(perEncf.get(row.encf)?.count ?? 0)} times`,
        );
        assert.equal(
          perEncf.get(row.encf)?.trackId,
          row.track_id,
          `${row.encf}: the trackId recorded is not the one DGII gave`,
        );
      }

      // The kills landed mid-send: a document's attempt marked `sending` was followed, with no outcome between, by
      // another worker's question to DGII about its e-NCF; each question was answered (DGII had it, or had nothing
      // and it was sent again).
      const events = await db
        .selectFrom('document_events')
        .select(['document_id', 'type', 'cause'])
        .where('document_id', 'in', ids)
        .where('type', 'like', 'dgii.%')
        .orderBy('id')
        .execute();
      const timelines = new Map<string, { type: string; cause: string }[]>();
      for (const event of events)
        timelines.set(event.document_id, [...(timelines.get(event.document_id) ?? []), event]);
      let interrupted = 0;
      const answers = new Map<string, number>();
      for (const timeline of timelines.values()) {
        timeline.forEach((event, i) => {
          const next = timeline[i + 1];
          if (event.type !== 'dgii.sending' || next?.type !== 'dgii.sending') return;
          assert.match(next.cause, /^DGII may already have it/);
          interrupted++;
          const answer = timeline[i + 2];
          const kind =
            answer === undefined
              ? 'none'
              : answer.cause.startsWith('DGII already had it')
                ? 'already there'
                : answer.type;
          answers.set(kind, (answers.get(kind) ?? 0) + 1);
        });
      }
      assert.ok(interrupted > 0, 'no kill left a document `sending`: the kills did not land mid-send');
      for (const kind of answers.keys())
        assert.ok(
          ['already there', 'dgii.resolved', 'dgii.uncertain', 'dgii.sending'].includes(kind),
          `a question after a kill was answered by ${kind}`,
        );
      // Each document received exactly one trackId.
      for (const row of rows) {
        const received = events.filter(
          (event) => event.document_id === row.id && event.type === 'dgii.received',
        ).length;
        assert.equal(received, 1, `${row.encf} was given ${String(received)} trackIds`);
      }
      process.stdout.write(
        `# ${String(interrupted)} sends interrupted by a kill, then resolved by asking DGII: ${JSON.stringify(Object.fromEntries(answers))}\n`,
      );
    });

    it('takes up a document a dead worker still holds once its lease runs out, not before', async () => {
      if (worker === undefined || worker.child.exitCode !== null || worker.child.signalCode !== null) {
        worker = startWorkerProcess(world.processEnv());
        await within('a worker start', worker.ready, 60_000, worker.output);
      }
      const db = world.app.application.database.db;
      const document = await world.create(ecfDocuments['31']);
      // What a worker killed after marking it `sending` leaves: the document and its queue row under its lease, still
      // running.
      const heldUntil = new Date(Date.now() + 3_000);
      await db
        .updateTable('documents')
        .set({
          status: 'sending',
          send_route: 'reception',
          send_lease_id: 'lse_killed_worker',
          send_lease_until: heldUntil,
          send_due_at: heldUntil,
          updated_at: new Date(),
        })
        .where('id', '=', document.id)
        .execute();
      await db
        .insertInto('outbound_work')
        .values({
          target: documentSends,
          item_id: document.id,
          environment: world.app.config.fiscalEnv,
          due_at: heldUntil,
          lease_id: 'lse_killed_worker',
          attempts: 1,
          correlation_id: 'queued-before-the-crash',
        })
        .execute();

      const done = await world.untilSettled(document.id, 60_000);
      assert.equal(done.status, 'accepted');
      const events = await db
        .selectFrom('document_events')
        .select(['at', 'type', 'cause', 'correlation_id'])
        .where('document_id', '=', document.id)
        .where('type', 'like', 'dgii.%')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        events.map((event) => event.type),
        ['dgii.sending', 'dgii.resolved', 'dgii.received', 'dgii.accepted'],
      );
      assert.match(events[0]?.cause ?? '', /^DGII may already have it/);
      // The correlation id the send was queued with is the queue row's: the worker process that took it up, and the
      // poll it queued, record under it (SPEC §9.5).
      assert.deepEqual(
        events.map((event) => event.correlation_id),
        events.map(() => 'queued-before-the-crash'),
      );
      // Taken up only once the dead worker's lease had run out.
      assert.ok(
        (events[0]?.at.getTime() ?? 0) >= heldUntil.getTime(),
        `taken up at ${String(events[0]?.at.toISOString())}, before ${heldUntil.toISOString()}`,
      );
      const arrivals = (await world.sandbox.admin('GET', `/arrivals?encf=${document.eNCF}`)).body as unknown[];
      assert.equal(arrivals.length, 1);
    });
  },
);
