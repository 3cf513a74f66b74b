/** The median of a bench's rounds (the upper one of an even count): what the benches that run in rounds report. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
