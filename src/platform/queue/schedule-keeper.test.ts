import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase } from '../../../test/support/backends.js';
import { openDatabase, type DatabaseHandle } from '../db/database.js';
import { createLogger } from '../observability/logger.js';
import { latestDueTime, startScheduleKeeper, type ScheduleKeeper } from './schedule-keeper.js';

const zone = 'America/Santo_Domingo';

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the schedule keeper', { timeout: 60_000 }, () => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  before(async () => {
    const database = await createTestDatabase({ migrated: true });
    handle = await openDatabase(database.target);
    drop = () => database.drop();
  });
  after(async () => {
    await handle.close();
    await drop();
  });

  /** Schedulers on one database, on a clock the test moves; each start is recorded, committed with the due time. */
  function schedulers(job: string, cron: string, count: number, options: { at?: string; failing?: Set<number> } = {}) {
    const clock = { at: new Date(options.at ?? '2026-03-02T13:00:30Z') };
    const failing = options.failing ?? new Set();
    const starts: { scheduler: number; dueAt: string }[] = [];
    const keepers: ScheduleKeeper[] = Array.from({ length: count }, (_, scheduler) =>
      startScheduleKeeper({
        db: handle.db,
        schedules: [{ name: job, cron }],
        timeZone: zone,
        async start(trx, schedule, dueAt) {
          await trx
            .insertInto('settings')
            .values({ key: `${schedule.name} ${dueAt.toISOString()}`, value: String(scheduler), updated_at: dueAt })
            .execute();
          // A scheduler that dies before its commit: nothing it did counts.
          if (failing.has(scheduler)) throw new Error(`scheduler ${String(scheduler)} died before its commit`);
          starts.push({ scheduler, dueAt: dueAt.toISOString() });
        },
        log: createLogger('silent'),
        tickMs: 5,
        now: () => Promise.resolve(clock.at),
      }),
    );
    const started = async () =>
      (
        await handle.db
          .selectFrom('settings')
          .select(['key', 'value'])
          .where('key', 'like', `${job} %`)
          .orderBy('key')
          .execute()
      ).map((row) => row.key.slice(job.length + 1));
    return {
      clock,
      starts,
      started,
      /** Until the job has its row. */
      noted: () =>
        until(
          'the job noted',
          async () =>
            (await handle.db.selectFrom('schedule_runs').select('job').where('job', '=', job).execute()).length === 1,
        ),
      stop: () => Promise.all(keepers.map((keeper) => keeper.stop())),
    };
  }

  it('finds the latest due time at or before a moment, in Santo Domingo time', () => {
    assert.equal(
      latestDueTime('17 3 * * *', zone, new Date('2026-03-02T07:17:00Z')).toISOString(),
      '2026-03-02T07:17:00.000Z',
    );
    assert.equal(
      latestDueTime('17 3 * * *', zone, new Date('2026-03-02T07:16:59Z')).toISOString(),
      '2026-03-01T07:17:00.000Z',
    );
    assert.equal(
      latestDueTime('* * * * *', zone, new Date('2026-03-02T07:16:59.900Z')).toISOString(),
      '2026-03-02T07:16:00.000Z',
    );
  });

  it('starts each due time once among four schedulers, and none for the time it was first noted at', async () => {
    const world = schedulers('test.every-minute', '* * * * *', 4);
    try {
      await world.noted();
      const expected: string[] = [];
      for (let minute = 1; minute <= 12; minute++) {
        world.clock.at = new Date(Date.parse('2026-03-02T13:00:30Z') + minute * 60_000);
        const due = new Date(Date.parse('2026-03-02T13:00:00Z') + minute * 60_000).toISOString();
        expected.push(due);
        await until(`the start for ${due}`, () => world.starts.some((start) => start.dueAt === due));
      }
      // Every scheduler has looked at the last due time before the count.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(world.starts.map((start) => start.dueAt).sort(), expected);
      assert.deepEqual(await world.started(), expected);
      assert.ok(new Set(world.starts.map((start) => start.scheduler)).size > 1, 'one scheduler started every time');
    } finally {
      await world.stop();
    }
  });

  it('leaves a due time a dying scheduler could not commit to another, which starts it once', async () => {
    const world = schedulers('test.taken-up', '*/5 * * * *', 2, { failing: new Set([0]) });
    try {
      await world.noted();
      world.clock.at = new Date('2026-03-02T13:05:10Z');
      await until('the start', () => world.starts.length > 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(world.starts, [{ scheduler: 1, dueAt: '2026-03-02T13:05:00.000Z' }]);
      assert.deepEqual(await world.started(), ['2026-03-02T13:05:00.000Z']);
    } finally {
      await world.stop();
    }
  });

  it('starts a daily job missed while no scheduler ran once when one runs again', async () => {
    const first = schedulers('test.daily', '17 3 * * *', 1);
    try {
      await first.noted();
    } finally {
      await first.stop();
    }
    assert.deepEqual(first.starts, []);
    // Three days later, long after 03:17 (07:17 UTC) each day: one start, for the latest.
    const again = schedulers('test.daily', '17 3 * * *', 2, { at: '2026-03-05T12:00:00Z' });
    try {
      await until('the start', () => again.starts.length > 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(
        again.starts.map((start) => start.dueAt),
        ['2026-03-05T07:17:00.000Z'],
      );
      const row = await handle.db
        .selectFrom('schedule_runs')
        .select(['due_at', 'fired_at'])
        .where('job', '=', 'test.daily')
        .executeTakeFirstOrThrow();
      assert.equal(row.due_at.toISOString(), '2026-03-05T07:17:00.000Z');
      assert.ok(row.fired_at instanceof Date, 'the start is recorded');
    } finally {
      await again.stop();
    }
  });
});
