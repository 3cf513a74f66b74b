// Rates measured in alternating rounds. The reference machine has two shared cores and its speed drifts by the
// second, so a bench never sets rates taken at different times side by side: every operation it compares runs once
// in each short round, one after the other, and a ratio is taken within a round, then the rounds' median.
import { median } from './statistics.js';

/** What a bench repeats. One that returns a promise is awaited before the next starts. */
export type Operation = () => unknown;

export interface RoundOptions {
  /** 7 by default. */
  rounds?: number;
  /** How long each operation runs in each round: 0.25 s by default. */
  seconds?: number;
}

/** Each round's measure of one operation. */
export interface Rounds {
  /** Operations per second, wall clock. */
  rates: number[];
  /** This process's CPU (all its threads: the thread pool, the collector) per operation, in milliseconds. */
  cpuMs: number[];
}

const ROUNDS = 7;
const ROUND_SECONDS = 0.25;
const WARM_UP_SECONDS = 0.2;

async function run(operation: Operation, seconds: number): Promise<{ rate: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const end = start + seconds * 1000;
  let count = 0;
  while (performance.now() < end) {
    const result = operation();
    // A synchronous operation never yields here: the loop is as tight as a plain one.
    if (result instanceof Promise) await result;
    count++;
  }
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { rate: count / (elapsed / 1000), cpuMs: (used.user + used.system) / 1000 / count };
}

/** Every operation warmed up, then run for `seconds` in each of `rounds` rounds, in the order given. */
export async function inRounds<K extends string>(
  operations: Readonly<Record<K, Operation>>,
  options: RoundOptions = {},
): Promise<Record<K, Rounds>> {
  const names = Object.keys(operations) as K[];
  for (const name of names) await run(operations[name], WARM_UP_SECONDS);
  const measured = Object.fromEntries(names.map((name): [K, Rounds] => [name, { rates: [], cpuMs: [] }])) as Record<
    K,
    Rounds
  >;
  for (let round = 0; round < (options.rounds ?? ROUNDS); round++) {
    for (const name of names) {
      const { rate, cpuMs } = await run(operations[name], options.seconds ?? ROUND_SECONDS);
      measured[name].rates.push(rate);
      measured[name].cpuMs.push(cpuMs);
    }
  }
  return measured;
}

/** Each round's ratio of `measured`'s rate to `baseline`'s. */
export function ratios(measured: Rounds, baseline: Rounds): number[] {
  return measured.rates.map((rate, round) => rate / (baseline.rates[round] ?? Number.NaN));
}

/** The median rate of `operation` and its median ratio to `baseline`, measured in alternating rounds. */
export async function rateAgainst(
  operation: Operation,
  baseline: Operation,
  options: RoundOptions = {},
): Promise<{ rate: number; ratio: number }> {
  const measured = await inRounds({ baseline, operation }, options);
  return { rate: median(measured.operation.rates), ratio: median(ratios(measured.operation, measured.baseline)) };
}
