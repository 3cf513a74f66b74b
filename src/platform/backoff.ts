/**
 * The delay before retry number `attempt` (1-based): `baseMs` doubled per attempt up to `maxMs`, with jitter on
 * half of it, so the retries of many failures spread out instead of arriving together. `random` is in [0, 1).
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: number = Math.random()): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + random * (exponential / 2));
}

/** backoffMs as a retry schedule (platform/work's WorkPolicy.retryDelayMs). */
export function exponentialBackoff(baseMs: number, maxMs: number): (attempts: number, random: number) => number {
  return (attempts, random) => backoffMs(attempts, baseMs, maxMs, random);
}
