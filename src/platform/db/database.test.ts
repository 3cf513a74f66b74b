import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../test/support/backends.js';
import { childModule } from '../../../test/support/node-program.js';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.js';
import { openDatabase, type DatabaseHandle, type DatabaseTarget } from './database.js';
import { migrateToLatest } from './migrate.js';
import { compiledOnce, executePrepared } from './prepared.js';
import { unnestedSlots } from './unnest.js';
import { transact } from './transact.js';
import { ConnectionInsideTransactionError } from './transaction-scope.js';
import { fail, ok } from '../result.js';

function backendSuite(
  label: string,
  open: () => Promise<{ handle: DatabaseHandle; target: DatabaseTarget; drop: () => Promise<void> }>,
) {
  describe(`database on ${label}`, () => {
    let handle: DatabaseHandle;
    let target: DatabaseTarget;
    let drop: () => Promise<void>;
    before(async () => {
      ({ handle, target, drop } = await open());
    });
    after(async () => {
      await handle.close();
      await drop();
    });

    it('applies every migration once, and a second run applies none', async () => {
      const first = await migrateToLatest(handle.db);
      assert.deepEqual(first, [
        '20261121_0001_foundation',
        '20261121_0002_sequences',
        '20261121_0003_documents',
        '20261121_0004_allocations_idempotency',
        '20261121_0005_sending',
        '20261121_0006_taxpayers',
        '20261121_0007_rfce_artefact',
        '20261121_0008_received',
        '20261121_0009_commercial_approvals',
        '20261121_0010_webhooks',
        '20261121_0011_commercial_responses',
        '20261122_0012_document_sends',
        '20261122_0013_drop_documents_pending',
        '20261126_0014_certification',
        '20261126_0015_outbound_work',
        '20261126_0016_outbound_acecf',
        '20261126_0017_outbound_webhooks',
        '20261126_0018_outbound_documents',
        '20261126_0019_outbound_outbox',
        '20261126_0020_company_branding',
        '20261126_0021_document_contingency',
        '20261126_0022_timbre_url_colons',
        '20261127_0023_archive_verification',
        '20261127_0024_buyer_deliveries',
        '20261128_0025_idempotent_creations',
        '20261128_0026_abandoned_blobs',
        '20261128_0027_engine_leases',
        '20261129_0028_certification_work',
        '20261129_0029_document_issue_dates',
        '20261129_0030_correlation_ids',
        '20261129_0031_role_copies',
      ]);
      assert.deepEqual(await migrateToLatest(handle.db), []);
    });

    it('reads numeric as an exact decimal string and counts as numbers', async () => {
      const { rows } = await sql<{ amount: string; total: number }>`
        select 12345678901234567.89::numeric(20, 2) as amount, count(*) as total from generate_series(1, 3)`.execute(
        handle.db,
      );
      assert.deepEqual(rows, [{ amount: '12345678901234567.89', total: 3 }]);
    });

    it('reads a date as the calendar date it is (yyyy-mm-dd), not as an instant', async () => {
      const { rows } = await sql<{ day: string }>`select date '2027-12-31' as day`.execute(handle.db);
      assert.deepEqual(rows, [{ day: '2027-12-31' }]);
    });

    it('rolls back a failed transaction as a whole', async () => {
      await assert.rejects(
        handle.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('settings')
            .values({ key: 'rollback-probe', value: 'x', updated_at: new Date() })
            .execute();
          throw new Error('boom');
        }),
        /boom/,
      );
      const found = await handle.db.selectFrom('settings').selectAll().where('key', '=', 'rollback-probe').execute();
      assert.equal(found.length, 0);
    });

    it('keeps concurrent transactions apart: each claim gets a distinct row', async () => {
      await handle.db
        .insertInto('settings')
        .values(Array.from({ length: 6 }, (_, i) => ({ key: `claim-${i}`, value: 'free', updated_at: new Date() })))
        .execute();
      const claim = () =>
        handle.db.transaction().execute(async (trx) => {
          const row = await trx
            .selectFrom('settings')
            .select('key')
            .where('key', 'like', 'claim-%')
            .where('value', '=', 'free')
            .orderBy('key')
            .limit(1)
            .forUpdate()
            .skipLocked()
            .executeTakeFirstOrThrow();
          await trx.updateTable('settings').set({ value: 'taken' }).where('key', '=', row.key).execute();
          return row.key;
        });
      const claimed = await Promise.all(Array.from({ length: 6 }, () => claim()));
      assert.equal(new Set(claimed).size, 6);
    });

    it('answers its probe', async () => {
      await handle.probe(2_000);
      if (target.kind === 'postgres') {
        // The answer is the server's: on a connection of its own, named, the server last ran the probe's statement.
        const name = `probe-${randomUUID()}`;
        const url = new URL(target.url);
        url.searchParams.set('application_name', name);
        const probed = await openDatabase({ ...target, url: url.toString(), poolSize: 1 });
        try {
          await probed.probe(2_000);
          const { rows } = await sql<{
            query: string;
          }>`select query from pg_stat_activity where application_name = ${name}`.execute(handle.db);
          assert.deepEqual(
            rows.map((row) => row.query),
            ['select 1'],
          );
        } finally {
          await probed.close();
        }
      } else {
        // PGlite answers one statement at a time: while a transaction holds it, the probe gets no answer in time.
        let release!: () => void;
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        const holding = handle.db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await held;
        });
        try {
          await assert.rejects(handle.probe(300), /^Error: Embedded database did not answer within 300 ms$/);
        } finally {
          release();
          await holding;
        }
        await handle.probe(2_000);
      }
    });

    it('refuses at once a pool connection requested inside transact(), instead of hanging or escaping the transaction', async () => {
      const result = transact(handle.db, async (trx) => {
        await trx.selectFrom('settings').select('key').execute();
        await handle.db.selectFrom('settings').select('key').execute();
        return ok(undefined);
      });
      await assert.rejects(result, ConnectionInsideTransactionError);
      await assert.rejects(
        transact(handle.db, async () => {
          await handle.executor.executeSql('select 1', []);
          return ok(undefined);
        }),
        ConnectionInsideTransactionError,
      );
      // The pool is still usable afterwards.
      await handle.probe(2_000);
    });

    it('commits a successful transact() and rolls back a failed Result as a whole', async () => {
      const committed = await transact(handle.db, async (trx) => {
        await trx.insertInto('settings').values({ key: 'transact-ok', value: '1', updated_at: new Date() }).execute();
        return ok('done');
      });
      assert.deepEqual(committed, { ok: true, value: 'done' });
      const failed = await transact(handle.db, async (trx) => {
        await trx
          .insertInto('settings')
          .values({ key: 'transact-failed', value: '1', updated_at: new Date() })
          .execute();
        return fail('validation_failed', 'nope');
      });
      assert.equal(failed.ok, false);
      const keys = (
        await handle.db.selectFrom('settings').select('key').where('key', 'like', 'transact-%').execute()
      ).map((row) => row.key);
      assert.deepEqual(keys, ['transact-ok']);
    });

    it('runs a statement marked prepared with its values, and on PostgreSQL by name, prepared once per connection', async () => {
      const marked = (value: number) =>
        sql<{ doubled: number }>`select ${value}::int8 * 2 as doubled, 'prepared-probe' as tag`;
      const answers = await transact(handle.db, async (trx) => {
        const first = await executePrepared(trx, marked(21));
        const second = await executePrepared(trx, marked(50));
        const preparedHere =
          handle.kind === 'postgres'
            ? await sql<{
                name: string;
              }>`select name from pg_prepared_statements where statement like '%prepared-probe%'`.execute(trx)
            : { rows: [] };
        return ok({
          values: [first.rows[0]?.doubled, second.rows[0]?.doubled],
          prepared: preparedHere.rows.map((row) => row.name),
        });
      });
      assert.ok(answers.ok);
      assert.deepEqual(answers.value.values, [42, 100]);
      if (handle.kind === 'postgres') {
        assert.equal(answers.value.prepared.length, 1);
        assert.match(answers.value.prepared[0] ?? '', /^p_[0-9a-f]{24}$/);
      }
    });

    it('lives through its server ending a connection it holds: that transaction fails, the next one runs', async (t) => {
      if (handle.kind !== 'postgres') {
        t.skip('PGlite has no server to end a connection');
        return;
      }
      // What a restart, a failover or an administrator does to every connection (57P01), here to one held by a
      // transaction between two statements: node-postgres emits 'error' on a client the pool has handed out, where
      // nobody listens unless we do, and an unheard 'error' event ends the process (issue 43).
      const tag = `held-${String(process.pid)}-${String(Date.now())}`;
      let ended!: () => void;
      const connectionEnded = new Promise<void>((resolve) => {
        ended = resolve;
      });
      const outcome = transact(handle.db, async (trx) => {
        await sql`select ${tag}::text as tag`.execute(trx);
        await connectionEnded;
        await sql`select 1`.execute(trx);
        return ok(undefined);
      }).then(
        () => 'committed',
        (error: unknown) => error,
      );
      for (let tries = 0; ; tries++) {
        const { rows } = await handle.executor.executeSql(
          "select pg_terminate_backend(pid) as ended from pg_stat_activity where state = 'idle in transaction' and query like $1",
          ['select $1::text as tag%'],
        );
        if (rows.length > 0) break;
        if (tries > 100) throw new Error('the held transaction never showed in pg_stat_activity');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The server's word reaches the client on its own, while no statement of it runs.
      await new Promise((resolve) => setTimeout(resolve, 300));
      ended();
      const error = await outcome;
      assert.ok(error instanceof Error, 'the transaction whose connection ended fails');
      assert.doesNotMatch(error.message, /inside transact/);
      const after = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
      assert.equal(after.rows[0]?.one, 1);
    });

    it('compiles a compiledOnce statement on its first run and fills in each run its own values', async () => {
      let builds = 0;
      const columns = [
        { name: 'n', type: 'int4' },
        { name: 'label', type: 'text' },
      ];
      const statement = compiledOnce<{ n: number; label: string; unit: string }>((slot) => {
        builds++;
        // 'x' is a value of the text, not of a run: it stays in every run.
        return sql`select n, label, ${'x'}::text as unit from ${unnestedSlots(columns, 'i', slot)} order by n`;
      });
      const first = await statement(handle.db, [
        [1, 2],
        ['one', 'two'],
      ]);
      const second = await statement(handle.db, [[7], ['seven']]);
      assert.equal(builds, 1);
      assert.deepEqual(first.rows, [
        { n: 1, label: 'one', unit: 'x' },
        { n: 2, label: 'two', unit: 'x' },
      ]);
      assert.deepEqual(second.rows, [{ n: 7, label: 'seven', unit: 'x' }]);
    });
  });
}

backendSuite('the test back end (PostgreSQL when it answers, else PGlite)', async () => {
  const database: TestDatabase = await createTestDatabase();
  return { handle: await openDatabase(database.target), target: database.target, drop: () => database.drop() };
});

backendSuite('embedded PGlite on disk', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ecf-db-'));
  const target: DatabaseTarget = { kind: 'pglite', dataDir: dir };
  return {
    handle: await openDatabase(target),
    target,
    drop: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
});

describe('data directory lock', () => {
  it('refuses a second holder with a message naming the directory and the process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ecf-lock-'));
    const release = lockDataDir(dir);
    assert.throws(
      () => lockDataDir(dir),
      (error: unknown) => {
        assert.ok(error instanceof DataDirInUseError);
        assert.match(error.message, new RegExp(`${dir}.*process ${process.pid}`));
        return true;
      },
    );
    release();
    lockDataDir(dir)();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes over a lock left by a process that no longer runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ecf-lock-'));
    const lockFile = join(dir, 'ecf.lock');
    try {
      // A process that took the lock and died without releasing it (killed, as by a crash or the OOM killer).
      const lockModule = childModule(fileURLToPath(new URL('./data-dir-lock.ts', import.meta.url)));
      const crashed = spawnSync(
        process.execPath,
        [
          ...lockModule.nodeArgs,
          '--input-type=module',
          '-e',
          `const { lockDataDir } = await import(${JSON.stringify(pathToFileURL(lockModule.path).href)});
           lockDataDir(${JSON.stringify(dir)});
           process.kill(process.pid, 'SIGKILL');`,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(crashed.signal, 'SIGKILL', crashed.stderr);
      assert.equal(readFileSync(lockFile, 'utf8'), String(crashed.pid), 'the dead process holds the lock');

      const release = lockDataDir(dir);
      // Taken over: the lock now names this process, and a second holder is refused in its name.
      assert.equal(readFileSync(lockFile, 'utf8'), String(process.pid));
      assert.throws(
        () => lockDataDir(dir),
        (error: unknown) => error instanceof DataDirInUseError && error.message.includes(`process ${process.pid}`),
      );
      release();
      assert.equal(existsSync(lockFile), false, 'released');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
