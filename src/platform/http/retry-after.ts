// The other side's Retry-After (RFC 9110 §10.2.3), for every delivery that honours it (webhooks, buyers' receivers).
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
