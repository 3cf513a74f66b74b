// CPU time of processes of this machine, from Linux's /proc (and this process's own, from Node): what a bench reads
// to say which process a run kept busy.
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { procStatFields } from '../../test/support/proc-stat.js';

export const clockTicksPerSecond = 100;

/** CPU ticks (user + system) `pid` has used so far; undefined when it is gone or /proc is not Linux's. */
export function processTicks(pid: number): number | undefined {
  try {
    // utime and stime (fields 14 and 15 of proc(5)).
    const fields = procStatFields(`/proc/${String(pid)}/stat`);
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** CPU milliseconds `pids` used between two readings of ticksOf (pids that came or went count from 0). */
export function ticksOf(pids: readonly number[]): Map<number, number> {
  return new Map(
    pids.flatMap((pid) => {
      const ticks = processTicks(pid);
      return ticks === undefined ? [] : [[pid, ticks] as const];
    }),
  );
}

export function cpuMsBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let ticks = 0;
  for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
  return (ticks / clockTicksPerSecond) * 1_000;
}

/** CPU ticks used so far by each PostgreSQL backend serving `databases`, by pid (undefined when PostgreSQL is not a
 * process of this machine: on another host or in a container, its CPU is not ours to read). */
export async function postgresBackendTicks<DB>(
  db: Kysely<DB>,
  databases: readonly string[],
): Promise<Map<number, { database: string; ticks: number }> | undefined> {
  const backends = await sql<{
    pid: number;
    datname: string;
  }>`select pid, datname from pg_stat_activity where datname in (${sql.join(databases)})`.execute(db);
  const ticks = new Map<number, { database: string; ticks: number }>();
  for (const backend of backends.rows) {
    const used = processTicks(backend.pid);
    if (used === undefined) return undefined;
    ticks.set(backend.pid, { database: backend.datname, ticks: used });
  }
  return ticks;
}

/** CPU milliseconds the backends of `database` used between two readings of postgresBackendTicks. */
export function postgresCpuMsBetween(
  before: ReadonlyMap<number, { ticks: number }>,
  after: ReadonlyMap<number, { database: string; ticks: number }>,
  database: string,
): number {
  let ticks = 0;
  for (const [pid, backend] of after)
    if (backend.database === database) ticks += backend.ticks - (before.get(pid)?.ticks ?? 0);
  return (ticks / clockTicksPerSecond) * 1_000;
}

/** Starts counting this process's CPU (all its threads) and event-loop use: the function returned reads them since. */
export function ownUsage(): () => {
  cpuMs: number;
  systemMs: number;
  mainThreadMs: number | undefined;
  eventLoopUtilization: number;
} {
  const cpu = process.cpuUsage();
  const main = mainThreadTicks();
  const loop = performance.eventLoopUtilization();
  return () => {
    const used = process.cpuUsage(cpu);
    const mainNow = mainThreadTicks();
    return {
      cpuMs: (used.user + used.system) / 1_000,
      systemMs: used.system / 1_000,
      mainThreadMs:
        main === undefined || mainNow === undefined ? undefined : ((mainNow - main) / clockTicksPerSecond) * 1_000,
      eventLoopUtilization: performance.eventLoopUtilization(loop).utilization,
    };
  };
}

/** CPU ticks of this process's main thread (the event loop; not the worker, libuv or V8 threads). */
function mainThreadTicks(): number | undefined {
  try {
    const fields = procStatFields(`/proc/self/task/${String(process.pid)}/stat`);
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}
