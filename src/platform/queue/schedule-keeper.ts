// The scheduler's cron: each recurring job (src/schedules.ts) is started once for each time its cron falls due,
// however many schedulers run, and whichever of them is killed when. Each job has a row (schedule_runs, migration
// 0031) holding the last due time started; a scheduler starts the job for a later due time by moving the row to it,
// in the transaction that enqueues the job, only while the row is still behind it. One scheduler's statement moves
// it, the others' find it moved and start nothing; a scheduler killed before its commit moved nothing and enqueued
// nothing, and the next tick of any scheduler starts the job. Due times are reckoned on the database's clock, the
// one all schedulers share, so machines whose clocks disagree agree on what is due.
//
// pg-boss's own cron is not used: it enqueues through a job of its own (`__pgboss__send-it`) whose retry after a
// scheduler dies mid-way enqueues the job a second time, and it reckons due times on each machine's clock.
//
// A due time missed while no scheduler ran (all stopped at 03:17) is started once when one runs again, not once per
// time missed. A job seen for the first time (a new database, a new schedule) is only noted: it first starts at its
// next due time, as a cron does.
import cronParser from 'cron-parser';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { transact, type Trx } from '../db/transact.js';
import type { Logger } from '../observability/logger.js';
import { ok } from '../result.js';
import { failureStreak } from './failure-streak.js';

export interface KeptSchedule {
  /** The job's name. */
  name: string;
  /** Five-field cron. */
  cron: string;
}

export interface ScheduleKeeper {
  /** Stops ticking and waits for the tick under way. */
  stop(): Promise<void>;
}

/** The latest time at or before `at` when `cron` falls due, in `timeZone`. */
export function latestDueTime(cron: string, timeZone: string, at: Date): Date {
  // prev() is the latest time strictly before its start: a millisecond later counts `at` itself when it is due.
  const due = cronParser.parseExpression(cron, { currentDate: new Date(at.getTime() + 1), tz: timeZone }).prev();
  return due.toDate();
}

async function databaseNow(db: Db): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`select now() as now`.execute(db);
  const row = rows[0];
  if (row === undefined) throw new Error('the database did not say what time it is');
  return row.now;
}

export function startScheduleKeeper(deps: {
  db: Db;
  schedules: readonly KeptSchedule[];
  timeZone: string;
  /** Enqueues the job of `schedule`, due at `dueAt`, inside `trx` (it commits or rolls back with the due time). */
  start: (trx: Trx, schedule: KeptSchedule, dueAt: Date) => Promise<void>;
  log: Logger;
  /** How often the due times are looked at: a job starts at most this long after it falls due. */
  tickMs: number;
  /** The time due times are reckoned at; the database's by default (tests move it). */
  now?: () => Promise<Date>;
}): ScheduleKeeper {
  const { db, schedules, timeZone, log, tickMs } = deps;
  const now = deps.now ?? (() => databaseNow(db));
  // The due time each job was last found started, by this scheduler or another: no statement until the next one.
  const settled = new Map<string, number>();
  const ticks = failureStreak(log, 'keeping the schedules', tickMs);

  /** Each job's row, noted at the due time just passed when it has none: nothing starts for a time before it. */
  async function noteSchedules(at: Date): Promise<void> {
    for (const schedule of schedules)
      await db
        .insertInto('schedule_runs')
        .values({ job: schedule.name, due_at: latestDueTime(schedule.cron, timeZone, at), fired_at: null })
        .onConflict((conflict) => conflict.column('job').doNothing())
        .execute();
  }

  /** Starts the job for `dueAt` unless a scheduler did; whether this one did. */
  async function startOnce(schedule: KeptSchedule, dueAt: Date): Promise<boolean> {
    const started = await transact(db, async (trx) => {
      const moved = await trx
        .updateTable('schedule_runs')
        .set({ due_at: dueAt, fired_at: sql<Date>`now()` })
        .where('job', '=', schedule.name)
        .where('due_at', '<', dueAt)
        .returning('job')
        .executeTakeFirst();
      if (moved === undefined) return ok(false);
      await deps.start(trx, schedule, dueAt);
      return ok(true);
    });
    return started.ok && started.value;
  }

  // Read and written by the ticks and by stop(), across awaits.
  const state: { stopped: boolean; noted: boolean; timer: NodeJS.Timeout | undefined; running: Promise<void> } = {
    stopped: false,
    noted: false,
    timer: undefined,
    running: Promise.resolve(),
  };

  async function tick(): Promise<void> {
    const at = await now();
    if (!state.noted) {
      await noteSchedules(at);
      state.noted = true;
    }
    for (const schedule of schedules) {
      if (state.stopped) return;
      const dueAt = latestDueTime(schedule.cron, timeZone, at);
      if ((settled.get(schedule.name) ?? -Infinity) >= dueAt.getTime()) continue;
      if (await startOnce(schedule, dueAt))
        log.debug({ job: schedule.name, dueAt: dueAt.toISOString() }, 'recurring job started');
      settled.set(schedule.name, dueAt.getTime());
    }
  }

  function next(): void {
    state.running = (async () => {
      let rest = tickMs;
      try {
        await tick();
        ticks.succeeded();
      } catch (error) {
        rest = ticks.failed(error);
      }
      if (!state.stopped) state.timer = setTimeout(next, rest);
    })();
  }
  next();

  return {
    async stop() {
      state.stopped = true;
      clearTimeout(state.timer);
      await state.running;
    },
  };
}
