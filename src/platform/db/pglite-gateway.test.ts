// The embedded database's disk fills up (issue 43). PGlite, PostgreSQL inside this process, cannot survive every
// WAL write its disk refuses: at a COMMIT the call never returns and the event loop spins. So the gateway stops
// writing while the disk is under its reserve; and where a write is refused anyway (the reserve off, or eaten at
// once) the PANIC that stops PGlite is answered, the instance never called again, and the data directory opened
// afresh once it can write, keeping what was committed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { pino } from 'pino';
import { injectDiskFull, type DiskFull } from '../../../test/support/disk-full.js';
import { until } from '../../../test/support/until.js';
import { openPgliteGateway, type PgliteGateway, type PgliteGatewayOptions } from './pglite-gateway.js';
import { isDatabaseFull, isDatabaseUnavailable } from './unavailable.js';

interface World {
  dir: string;
  disk: DiskFull;
  gateway: PgliteGateway;
  db: Kysely<{ t: { id: number; s: string } }>;
  logged: { msg: string; level: number }[];
  close(): Promise<void>;
}

async function openWorld(options: Omit<PgliteGatewayOptions, 'log'>): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'ecf-pglite-full-'));
  const disk = injectDiskFull(dir);
  const logged: World['logged'] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line) as never) });
  const gateway = await openPgliteGateway(join(dir, 'pgdata'), { ...options, log });
  const db = new Kysely<{ t: { id: number; s: string } }>({
    dialect: new PostgresDialect({ pool: gateway.pool as unknown as pg.Pool }),
  });
  await gateway.executeSql('create table t (id int primary key, s text)', []);
  await gateway.executeSql(`insert into t values (1, 'committed before')`, []);
  return {
    dir,
    disk,
    gateway,
    db,
    logged,
    async close() {
      disk.restore();
      await db.destroy();
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function rejection(promise: Promise<unknown>, what: string): Promise<unknown> {
  return promise.then(
    () => assert.fail(what),
    (error: unknown) => error,
  );
}

describe('the embedded database on a full disk', () => {
  let world: World;
  before(async () => {
    world = await openWorld({ reserveBytes: 64 * 1_048_576 });
  });
  after(() => world.close());

  it('refuses writes as a full disk under its reserve, goes on reading, and writes again once there is room', async () => {
    const { disk, db, gateway } = world;
    disk.lowOnSpace(10 * 1_048_576);
    const failure = await rejection(
      db.transaction().execute(async (trx) => {
        await sql`update t set s = 'never committed' where id = 1`.execute(trx);
      }),
      'a write went through under the reserve',
    );
    assert.ok(isDatabaseFull(failure), String(failure));
    assert.match(
      String(failure),
      /disk has 10 MB free, less than its reserve of 64 MB \(EMBEDDED_DISK_RESERVE_MB\): writes wait until there is room/,
    );
    // A statement that writes through a CTE is a write; one that reads is answered.
    assert.ok(
      isDatabaseFull(
        await rejection(
          gateway.executeSql('with x as (delete from t returning id) select * from x', []),
          'a CTE wrote',
        ),
      ),
    );
    assert.deepEqual((await gateway.executeSql('select id, s from t', [])).rows, [{ id: 1, s: 'committed before' }]);

    disk.free();
    await until(
      () => gateway.executeSql(`update t set s = 'after' where id = 1`, []).then(() => 'written', String),
      (answer) => answer === 'written',
      'writes again',
      5_000,
    );
    assert.deepEqual((await gateway.executeSql('select id, s from t', [])).rows, [{ id: 1, s: 'after' }]);
  });

  it('answers the PANIC of a write the reserve did not stop, then unavailable without calling into it, and reopens once it can write', async () => {
    const { disk, gateway, logged } = world;
    disk.fill();
    const failure = await rejection(
      gateway.executeSql(`update t set s = 'never committed' where id = 1`, []),
      'the disk was full and the update committed',
    );
    assert.ok(isDatabaseFull(failure), String(failure));
    assert.equal((failure as { severity?: string }).severity, 'PANIC');
    assert.ok(disk.refused > 0);

    // Stopped: each statement is refused at once as unavailable (a 503), never sent into the stopped PGlite.
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const refused = await rejection(gateway.executeSql('select count(*) from t', []), 'a stopped database answered');
      assert.ok(isDatabaseUnavailable(refused), String(refused));
      assert.match(String(refused), /embedded database stopped \(could not write to log file/);
      assert.ok(Date.now() - started < 1_000);
    }

    // Room again: within the reopen interval the data directory is opened afresh, its WAL replayed.
    disk.free();
    const rows = await until(
      () => gateway.executeSql('select id, s from t order by id', []).catch(String),
      (answer) => typeof answer !== 'string',
      'the embedded database reopened',
      10_000,
    );
    assert.deepEqual((rows as { rows: unknown[] }).rows, [{ id: 1, s: 'after' }]);
    await gateway.executeSql(`insert into t values (2, 'after')`, []);
    assert.deepEqual(
      logged.filter((line) => /embedded database/.test(line.msg)).map((line) => [line.level, line.msg]),
      [
        [50, 'the embedded database stopped; it is reopened at the next statement'],
        [40, 'the embedded database reopened'],
      ],
    );
  });

  it('stays stopped while the disk is still full, and reopens when it is not', async () => {
    const { disk, gateway } = world;
    disk.fill();
    const failure = await rejection(
      gateway.executeSql(`update t set s = 'never committed' where id = 2`, []),
      'the disk was full and the update committed',
    );
    assert.equal((failure as { severity?: string }).severity, 'PANIC');
    // Past the reopen interval the gateway tries again, and the disk, still full, refuses.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const refused = await rejection(gateway.executeSql('select 1', []), 'a database with a full disk reopened');
    assert.ok(isDatabaseUnavailable(refused), String(refused));
    disk.free();
    await until(
      () => gateway.executeSql('select 1', []).catch(String),
      (answer) => typeof answer !== 'string',
      'the embedded database reopened',
      10_000,
    );
    assert.deepEqual((await gateway.executeSql('select id, s from t order by id', [])).rows, [
      { id: 1, s: 'after' },
      { id: 2, s: 'after' },
    ]);
  });
});
