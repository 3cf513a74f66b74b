// The certification lane rides through its database going away (issue 43): the lane runs in an `ecf worker` whose
// every connection goes through a proxy, cut for 8 s while the set's cases go to the DGII sandbox. The worker stays
// up, takes up its lane when the database answers again, and the run completes with each case sent exactly once.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { postgresAvailable } from './support/backends.js';
import { receptionsPerEncf } from './support/sandbox-kit.js';
import { startCertificationWorld, type CertificationWorld } from './support/certification-kit.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process.js';

const onPostgres = await postgresAvailable();

describe(
  'certification while the worker loses its database',
  {
    skip: onPostgres
      ? false
      : 'needs PostgreSQL at 127.0.0.1:5432: the worker runs in a child process, which cannot share embedded PGlite',
    timeout: 300_000,
  },
  () => {
    let world: CertificationWorld;
    let proxy: TcpProxy;
    let worker: WorkerProcess | undefined;
    before(async () => {
      // This process serves HTTP and polls verdicts on the database directly; the lane runs in the worker.
      world = await startCertificationWorld({
        roles: { http: true, work: false, schedule: true },
        env: { DGII_CONNECT_TIMEOUT_MS: '1000', DGII_RESPONSE_TIMEOUT_MS: '2500', SEND_LEASE_SECONDS: '8' },
      });
      proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    });
    after(async () => {
      if (worker !== undefined && worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
        await worker.exited;
      }
      await world.close();
      await proxy.close();
    });

    it('takes up the lane when the database answers again, each case sent once', async () => {
      const env = world.processEnv();
      const databaseUrl = new URL(env['DATABASE_URL'] ?? '');
      databaseUrl.port = String(proxy.port);
      worker = startWorkerProcess({ ...env, DATABASE_URL: databaseUrl.toString(), SEND_RETRY_BASE_MS: '200' });
      await worker.ready;
      const id = await world.start(world.setFile({ seed: 11 }));
      assert.equal((await world.call('POST', `/api/v1/certificacion/${id}/ejecutar?limit=50`)).statusCode, 202);
      // Cut while the lane is under way: some cases sent, others not yet.
      await world.until(id, (rows) => rows.some((row) => row.step === 2 && row.status !== 'pending'), 60_000);
      await proxy.pause();
      await sleep(8_000);
      assert.equal(worker.child.exitCode, null, `the worker died:\n${worker.output()}`);
      await proxy.resume();

      const cases = await world.until(
        id,
        (rows) => rows.filter((row) => row.step === 2).every((row) => row.status === 'accepted'),
        180_000,
      );
      assert.equal(cases.filter((row) => row.step === 2).length, 29);
      assert.equal(worker.child.exitCode, null, `the worker died:\n${worker.output()}`);
      assert.match(worker.output(), /claiming certification lanes works again/);
      const counts = await receptionsPerEncf(world.sandbox, `rnc=${world.rnc}`);
      assert.equal(counts.size, 25);
      assert.deepEqual(
        [...counts].filter(([, count]) => count !== 1),
        [],
        'every e-NCF reached DGII exactly once',
      );
      const documents = (await world.call('GET', '/api/v1/documentos?limit=100')).json<{ data: { eNCF: string }[] }>()
        .data;
      assert.equal(new Set(documents.map((row) => row.eNCF)).size, 25);
      assert.equal(documents.length, 25);
    });
  },
);
