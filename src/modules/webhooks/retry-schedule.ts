// When a failed delivery is tried again: Svix's schedule (the Standard Webhooks example; research/anchors.md §4.1),
// with jitter so a receiver that was down is not hit by every retry at once, and never before the receiver's
// Retry-After.

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

/** A Retry-After longer than this is not waited for in full. */
const maxRetryAfterMs = 24 * 3_600_000;

/** The Retry-After header in milliseconds from `now` (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: Date): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1_000, maxRetryAfterMs);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now.getTime()), maxRetryAfterMs);
}

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
