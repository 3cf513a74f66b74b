// Every role in several copies (issue 46): two `ecf serve`, two `ecf worker` and two `ecf scheduler` processes on
// one PostgreSQL database and one Redis, with the DGII sandbox as DGII. 300 documents are created and then sent
// through both APIs in turn; while they are sent, the worker holding the archive checks (a rolling pass half-way)
// and one scheduler are SIGKILLed. Then: every document is accepted, each e-NCF reached DGII's reception exactly
// once and each timeline has one trackId and one verdict; the every-minute schedule (sequences.expire-allocations)
// started once for each minute the schedulers ran, the minute after the kill included; and the archive pass was
// started once, continued by the other worker where the killed one left it, completed once, each artefact counted
// once. Short leases make the taking up take seconds.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ecfDocuments } from './support/ecf-documents.js';
import { postgresAvailable, redisAvailable, testRedisUrl } from './support/backends.js';
import { freePort } from './support/free-port.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { startEcfProcess, type WorkerProcess } from './support/worker-process.js';

const onPostgres = await postgresAvailable();
const documents = 300;
const everyMinute = 'sequences.expire-allocations';

const timings = {
  // Two DGII calls of at most 1 + 2.5 s fit in the 8 s lease of a send or a poll.
  DGII_CONNECT_TIMEOUT_MS: '1000',
  DGII_RESPONSE_TIMEOUT_MS: '2500',
  SEND_LEASE_SECONDS: '8',
  SEND_RETRY_BASE_MS: '200',
  SEND_MAX_ATTEMPTS: '30',
  // Four sends (and verdict polls) at a time per process: the first half is still being sent when the kills land.
  SEND_CONCURRENCY: '4',
  // The archive pass over the documents takes seconds at 1 MB/s, a slice of it (500 files, 2 MB) well within the
  // 20 s lease even on a busy machine; the check of new files (a minute after they are written) keeps out of its way.
  ARCHIVE_VERIFY_MB_PER_S: '1',
  ARCHIVE_LEASE_SECONDS: '20',
  ARCHIVE_RECENT_SETTLE_SECONDS: '3600',
  // Six processes and the test's own on one server that other test files share.
  DATABASE_POOL_SIZE: '4',
  // Redis database 9: this file's keys apart from the other tests'.
  ...((await redisAvailable()) ? { REDIS_URL: `${testRedisUrl()}/9` } : {}),
};

interface Role {
  name: string;
  process: WorkerProcess;
  /** Everything it printed (the process's own tail is kept short). */
  lines: () => string[];
  port?: number;
}

function startRole(
  command: 'serve' | 'worker' | 'scheduler',
  name: string,
  env: Record<string, string>,
  port?: number,
) {
  const process = startEcfProcess(command, {
    ...env,
    ...(port === undefined ? {} : { PORT: String(port), HOST: '127.0.0.1' }),
  });
  let printed = '';
  const collect = (chunk: Buffer) => {
    printed += chunk.toString();
  };
  process.child.stdout?.on('data', collect);
  process.child.stderr?.on('data', collect);
  const role: Role = { name, process, lines: () => printed.split('\n') };
  if (port !== undefined) role.port = port;
  return role;
}

const alive = (role: Role) => role.process.child.exitCode === null && role.process.child.signalCode === null;

/** The log lines of `roles` whose message is `msg`. */
function logged(roles: readonly Role[], msg: string): { role: string; line: Record<string, unknown> }[] {
  return roles.flatMap((role) =>
    role
      .lines()
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .filter((line) => line.msg === msg)
      .map((line) => ({ role: role.name, line })),
  );
}

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

async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  ms: number,
  detail = () => '',
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${String(ms)} ms\n${detail()}`);
    await sleep(everyMs);
  }
}

describe(
  'two copies of every role on one database',
  {
    skip: onPostgres ? false : 'needs PostgreSQL at 127.0.0.1:5432: the roles run in processes of their own',
    timeout: 300_000,
  },
  () => {
    let world: SendingWorld;
    const roles: Role[] = [];

    before(async () => {
      // This process only provisions the company and reads the database: the six processes do the work.
      world = await startSendingWorld({ roles: { http: true, work: false, schedule: false }, env: timings });
      // Slow answers keep sends and verdict polls in flight, so the kills land while they are under way.
      for (const service of ['recepcion', 'consultaresultado']) {
        const slow = await world.sandbox.admin('POST', '/faults', {
          service,
          mode: 'slow',
          delayMs: 300,
          probability: 0.3,
        });
        assert.equal(slow.status, 201, JSON.stringify(slow.body));
      }
    });
    after(async () => {
      for (const role of roles)
        if (alive(role)) {
          role.process.child.kill('SIGKILL');
          await role.process.exited;
        }
      await world.close();
    });

    it('accepts every document once, starts each schedule once a minute and works the archive pass once', async () => {
      const db = world.app.application.database.db;
      const env = world.processEnv();
      const { apiKey } = await world.app.issueKey(world.companyId, [
        'documents:create',
        'documents:read',
        'documents:send',
      ]);
      const explain = () =>
        roles
          .map((role) => `--- ${role.name}${alive(role) ? '' : ' (dead)'}\n${role.process.output().slice(-3_000)}`)
          .join('\n');

      const apis = [
        startRole('serve', 'api-1', env, await freePort()),
        startRole('serve', 'api-2', env, await freePort()),
      ];
      const schedulers = [startRole('scheduler', 'scheduler-1', env), startRole('scheduler', 'scheduler-2', env)];
      roles.push(...apis, ...schedulers);
      // The every-minute job is noted at the minute the first scheduler sees (its first start is at the next one),
      // read as soon as it is there: a start seen already is the one right after it.
      const noted = until(
        'the schedule noted',
        async () => {
          const row = await db
            .selectFrom('schedule_runs')
            .selectAll()
            .where('job', '=', everyMinute)
            .executeTakeFirst();
          if (row === undefined) return undefined;
          return row.fired_at === null ? row.due_at : new Date(row.due_at.getTime() - 60_000);
        },
        60_000,
        explain,
      );
      noted.catch(() => undefined); // awaited below; a start that fails first is the failure to report
      for (const role of [...apis, ...schedulers])
        await within(`${role.name} to start`, role.process.ready, 60_000, explain);
      const notedAt = await noted;

      // Through both APIs in turn, four requests at a time.
      const post = async (index: number, path: string, body?: unknown) => {
        const api = apis[index % apis.length] as Role;
        const response = await fetch(`http://127.0.0.1:${String(api.port)}/api/v1${path}`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as { data: { id: string; eNCF: string } } };
      };
      const inTurn = async (work: (index: number) => Promise<void>) => {
        for (let batch = 0; batch < documents; batch += 4)
          await Promise.all(
            Array.from({ length: Math.min(4, documents - batch) }, (_, offset) => work(batch + offset)),
          );
      };

      // The documents first, so that the first rolling pass of the archive has them to read.
      const ids: string[] = new Array<string>(documents);
      await inTurn(async (index) => {
        const created = await post(index, '/documentos', ecfDocuments['31']);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        ids[index] = created.body.data.id;
      });

      // Sent through both APIs: half before the workers start (their first rolling pass of the archive starts with
      // them, over these documents), half after the kills.
      const send = async (index: number) => {
        const answer = await post(index, `/documentos/${ids[index] ?? ''}/enviar`);
        assert.equal(answer.status, 202, JSON.stringify(answer.body));
      };
      await inTurn(async (index) => {
        if (index < documents / 2) await send(index);
      });
      const workers = [startRole('worker', 'worker-1', env), startRole('worker', 'worker-2', env)];
      roles.push(...workers);
      for (const role of workers) await within(`${role.name} to start`, role.process.ready, 60_000, explain);

      // The kills, once the archive pass has recorded its first slice (while the workers send the first half): the
      // worker holding the archive checks, and one scheduler.
      const halfway = await until(
        'a rolling pass half-way',
        () =>
          db
            .selectFrom('archive_passes')
            .selectAll()
            .where('origin', '=', 'rolling')
            .where('completed_at', 'is', null)
            .where('position', 'is not', null)
            .executeTakeFirst(),
        60_000,
        explain,
        20,
      );
      // The holder, by the lease id it logged when it took the checks up.
      const lease = await db
        .selectFrom('outbound_work')
        .select('lease_id')
        .where('target', '=', 'archive.verifier')
        .executeTakeFirstOrThrow();
      const holders = workers.filter((role) =>
        logged([role], 'archive verification taken up by this process').some(
          (entry) => entry.line.holder === lease.lease_id,
        ),
      );
      assert.equal(holders.length, 1, `one worker holds the archive checks (${String(lease.lease_id)})`);
      const killedWorker = holders[0] as Role;
      const survivor = workers.find((role) => role !== killedWorker) as Role;
      const killedScheduler = schedulers[0] as Role;
      killedWorker.process.child.kill('SIGKILL');
      killedScheduler.process.child.kill('SIGKILL');
      const killedAt = new Date();
      assert.equal((await killedWorker.process.exited).signal, 'SIGKILL');
      assert.equal((await killedScheduler.process.exited).signal, 'SIGKILL');
      const inFlight = await db
        .selectFrom('documents')
        .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
        .where('id', 'in', ids)
        .groupBy('status')
        .execute();
      const atKill = await db
        .selectFrom('archive_passes')
        .select('completed_at')
        .where('id', '=', halfway.id)
        .executeTakeFirstOrThrow();
      assert.equal(atKill.completed_at, null, 'the kill came after the pass was complete: nothing to take up');
      await inTurn(async (index) => {
        if (index >= documents / 2) await send(index);
      });
      process.stdout.write(
        `# killed ${killedWorker.name} and ${killedScheduler.name} with the documents ${JSON.stringify(Object.fromEntries(inFlight.map((row) => [row.status, row.count])))}, the pass at ${halfway.artefacts} artefacts\n`,
      );

      // Every document final.
      await until(
        'every document final',
        async () => {
          const open = await db
            .selectFrom('documents')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .where('id', 'in', ids)
            .where('status', 'not in', ['accepted', 'accepted_conditional', 'rejected'])
            .executeTakeFirstOrThrow();
          return open.count === 0 ? true : undefined;
        },
        150_000,
        explain,
      );
      // The pass completed by the survivor, and a minute after the kills started by the other scheduler and worked.
      const pass = await until(
        'the archive pass complete',
        async () =>
          db
            .selectFrom('archive_passes')
            .selectAll()
            .where('id', '=', halfway.id)
            .where('completed_at', 'is not', null)
            .executeTakeFirst(),
        60_000,
        explain,
      );
      const firstAfterKill = new Date(Math.ceil(killedAt.getTime() / 60_000) * 60_000);
      const lastDue = await until(
        'the every-minute job started after the kills',
        async () => {
          const row = await db
            .selectFrom('schedule_runs')
            .selectAll()
            .where('job', '=', everyMinute)
            .executeTakeFirst();
          return row !== undefined && row.due_at >= firstAfterKill ? row.due_at : undefined;
        },
        90_000,
        explain,
      );
      const jobs = async () =>
        (
          await sql<{ created_on: Date; state: string }>`
            select created_on, state from pgboss.job where name = ${everyMinute}
            union all select created_on, state from pgboss.archive where name = ${everyMinute}
            order by created_on`.execute(db)
        ).rows;
      await until(
        'the job of the minute after the kills done',
        async () => ((await jobs()).at(-1)?.state === 'completed' ? true : undefined),
        30_000,
        explain,
      );
      for (const role of [...apis, survivor, schedulers[1] as Role])
        assert.ok(alive(role), `${role.name} stopped:\n${role.process.output()}`);

      // Every document accepted, each e-NCF at DGII's reception once, one trackId and one verdict on each timeline.
      const rows = await db
        .selectFrom('documents')
        .select(['id', 'encf', 'status', 'track_id'])
        .where('id', 'in', ids)
        .execute();
      assert.equal(rows.length, documents);
      assert.deepEqual([...new Set(rows.map((row) => row.status))], ['accepted']);
      const arrivals = (await world.sandbox.admin('GET', '/arrivals?service=recepcion')).body as {
        encf: string | null;
        track_id: string | null;
      }[];
      const atDgii = new Map<string, string[]>();
      for (const arrival of arrivals)
        if (arrival.encf !== null)
          atDgii.set(arrival.encf, [...(atDgii.get(arrival.encf) ?? []), arrival.track_id ?? '']);
      for (const row of rows) assert.deepEqual(atDgii.get(row.encf), [row.track_id], `${row.encf} at DGII`);
      const events = await db
        .selectFrom('document_events')
        .select(['document_id', 'type', (eb) => eb.fn.countAll<number>().as('count')])
        .where('document_id', 'in', ids)
        .where('type', 'in', ['dgii.received', 'dgii.accepted'])
        .groupBy(['document_id', 'type'])
        .execute();
      assert.equal(events.length, 2 * documents, 'each document received a trackId and a verdict');
      assert.deepEqual([...new Set(events.map((event) => event.count))], [1], 'one trackId and one verdict each');
      // Sends taken up by another attempt (the killed worker's, or one whose lease ran out on a busy machine), each
      // marked `sending` again after asking DGII first.
      const interrupted = await db
        .selectFrom('document_events')
        .select('document_id')
        .where('document_id', 'in', ids)
        .where('type', '=', 'dgii.sending')
        .groupBy('document_id')
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute();
      process.stdout.write(`# ${String(interrupted.length)} sends taken up by another attempt\n`);

      // The every-minute job: started once for each minute from the one after it was noted to the last,
      // the minute after the kills included, each within seconds of its minute.
      const started = await jobs();
      const minutes = started.map((job) => Math.floor(job.created_on.getTime() / 60_000));
      const expected: number[] = [];
      for (let minute = notedAt.getTime() / 60_000 + 1; minute <= lastDue.getTime() / 60_000; minute++)
        expected.push(minute);
      assert.deepEqual(
        minutes,
        expected,
        `started at ${started.map((job) => job.created_on.toISOString()).join(', ')}`,
      );
      for (const job of started) assert.ok(job.created_on.getTime() % 60_000 < 30_000, 'started late');

      // The archive pass: started once, taken up by the survivor once the killed worker's lease ran out, completed
      // once, each artefact counted once.
      const passes = await db.selectFrom('archive_passes').select(['id', 'origin']).execute();
      assert.deepEqual(passes, [{ id: halfway.id, origin: 'rolling' }]);
      const { artefacts } = await db
        .selectFrom('document_artefacts')
        .select((eb) => eb.fn.countAll<number>().as('artefacts'))
        .executeTakeFirstOrThrow();
      assert.equal(pass.recorded_artefacts, artefacts);
      assert.equal(pass.artefacts, artefacts, 'each artefact counted once');
      assert.equal(pass.findings, 0);
      // (On a busy machine the checks may also change hands between live workers, whenever one is too slow to renew
      // its lease: still one pass, each slice counted once.)
      const roleOf = (msg: string) => logged(workers, msg).map((entry) => entry.role);
      assert.equal(roleOf('archive pass started').length, 1, 'the pass started once');
      assert.deepEqual(roleOf('archive pass complete'), [survivor.name]);
      const takenUp = logged([survivor], 'archive verification taken up by this process').filter(
        (entry) => Number(entry.line.time) >= killedAt.getTime(),
      );
      assert.ok(takenUp.length > 0, 'the survivor took the checks up after the kill');
    });
  },
);
