/**
 * The delay before retry number `attempt` (1-based): `baseMs` doubled per attempt up to `maxMs`, with jitter on
 * half of it, so the retries of many failures spread out instead of arriving together.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + Math.random() * (exponential / 2));
}
