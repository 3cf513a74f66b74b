// CPU time of processes of this machine, from Linux's /proc: what a bench reads to say which process a run kept busy.
import { readFileSync } from 'node:fs';

export const clockTicksPerSecond = 100;

/** CPU ticks (user + system) `pid` has used so far; undefined when it is gone or /proc is not Linux's. */
export function processTicks(pid: number): number | undefined {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** CPU milliseconds `pids` used between two readings of ticksOf (pids that came or went count from 0). */
export function ticksOf(pids: readonly number[]): Map<number, number> {
  return new Map(pids.flatMap((pid) => {
    const ticks = processTicks(pid);
    return ticks === undefined ? [] : [[pid, ticks] as const];
  }));
}

export function cpuMsBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let ticks = 0;
  for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
  return (ticks / clockTicksPerSecond) * 1_000;
}
