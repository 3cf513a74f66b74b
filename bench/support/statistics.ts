// What the benches make of their samples and how they print them: one definition of each, so that a p99 or a median
// means the same in every row of the table.

/** The nearest-rank percentile `p` (0-100) of `sorted` (ascending); NaN for no samples. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** The median of a bench's rounds (the upper one of an even count): what the benches that run in rounds report. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The lowest and the highest of a bench's rounds: how far apart this shared machine put them. */
export function spread(values: readonly number[]): { low: number; high: number } {
  return { low: Math.min(...values), high: Math.max(...values) };
}

/** A duration: a decimal under 10 ms, whole milliseconds up to a second, seconds past it; `digits` fixes the decimals. */
export function ms(value: number, digits = value < 10 ? 1 : 0): string {
  return value >= 1_000 ? `${(value / 1_000).toFixed(2)} s` : `${value.toFixed(digits)} ms`;
}

/** p50, p99 and max of `values`, in milliseconds. */
export function latencies(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted[sorted.length - 1] ?? Number.NaN)}`;
}
