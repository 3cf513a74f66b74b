// Certification under crashes (SPEC §4.8 ejecutar): kill the worker in the middle of a certification run. The lane
// runs in `ecf worker` processes that are SIGKILLed at random moments while the set's cases go to the DGII sandbox;
// after the restarts the run completes and each case reached DGII exactly once (a case marked sent is resumed, its
// document never made or sent twice).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { postgresAvailable } from './support/backends.js';
import { receptionsPerEncf } from './support/sandbox-kit.js';
import { startCertificationWorld, type CertificationWorld } from './support/certification-kit.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const onPostgres = await postgresAvailable();
const kills = 4;
const timings = {
  DGII_CONNECT_TIMEOUT_MS: '1000',
  DGII_RESPONSE_TIMEOUT_MS: '2500',
  SEND_LEASE_SECONDS: '8',
  SEND_RETRY_BASE_MS: '200',
  SEND_MAX_ATTEMPTS: '30',
};

describe(
  `certification crash safety: the worker is SIGKILLed ${String(kills)} times during a run`,
  {
    skip: onPostgres
      ? false
      : 'needs PostgreSQL at 127.0.0.1:5432: the worker runs in child processes, which cannot share embedded PGlite',
    timeout: 300_000,
  },
  () => {
    let world: CertificationWorld;
    let worker: WorkerProcess | undefined;
    before(async () => {
      // This process serves HTTP and polls verdicts; the lane and the sends run in the worker, to be killed.
      world = await startCertificationWorld({ roles: { http: true, work: false, schedule: true }, env: timings });
      assert.equal(
        (
          await world.sandbox.admin('POST', '/faults', {
            service: 'recepcion',
            mode: 'slow',
            delayMs: 300,
            probability: 0.5,
          })
        ).status,
        201,
      );
    });
    after(async () => {
      if (worker !== undefined && worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
        await worker.exited;
      }
      await world.close();
    });

    it('completes step 2 after the restarts with each case sent exactly once', async () => {
      const env = world.processEnv();
      const id = await world.start(world.setFile({ seed: 9 }));
      assert.equal((await world.call('POST', `/api/v1/certificacion/${id}/ejecutar?limit=50`)).statusCode, 202);
      for (let kill = 0; kill < kills; kill++) {
        const current = startWorkerProcess(env);
        worker = current;
        await current.ready;
        await sleep(400 + Math.floor(Math.random() * 1_500));
        current.child.kill('SIGKILL');
        await current.exited;
      }
      worker = startWorkerProcess(env);
      await worker.ready;
      const cases = await world.until(
        id,
        (rows) => rows.filter((row) => row.step === 2).every((row) => row.status === 'accepted'),
        180_000,
      );
      assert.equal(cases.filter((row) => row.step === 2).length, 29);
      const counts = await receptionsPerEncf(world.sandbox, `rnc=${world.rnc}`);
      assert.equal(counts.size, 25);
      assert.deepEqual(
        [...counts].filter(([, count]) => count !== 1),
        [],
        'every e-NCF reached DGII exactly once',
      );
      // One document per e-NCF: the lane never made a second one after a kill.
      const documents = (await world.call('GET', '/api/v1/documentos?limit=100')).json<{ data: { eNCF: string }[] }>()
        .data;
      assert.equal(new Set(documents.map((row) => row.eNCF)).size, documents.length);
      assert.equal(documents.length, 25);
    });
  },
);
