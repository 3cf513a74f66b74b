// When a failed delivery is tried again: Svix's schedule (the Standard Webhooks example; research/anchors.md §4.1),
// with jitter so a receiver that was down is not hit by every retry at once, and never before the receiver's
// Retry-After.
import { retryAfterMs } from '../../platform/http/retry-after.js';

export { retryAfterMs };

/** Delay before each attempt: the first at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const retryDelaysMs = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;

export const maxAttempts = retryDelaysMs.length;

/** Up to this share of a delay is added at random. */
export const jitterShare = 0.1;

/**
 * The wait before the next attempt after `attempts` attempts have failed; undefined when none is left.
 * `random` is in [0, 1).
 */
export function nextRetryDelayMs(attempts: number, retryAfter: number | undefined, random: number): number | undefined {
  const scheduled = retryDelaysMs[attempts];
  if (scheduled === undefined) return undefined;
  const jittered = Math.round(scheduled * (1 + jitterShare * random));
  return Math.max(jittered, retryAfter ?? 0);
}
