import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxAttempts, nextRetryDelayMs, retryAfterMs, retryDelaysMs } from './retry-schedule.js';

describe('the webhook retry schedule', () => {
  it("is Svix's: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    assert.deepEqual(retryDelaysMs, [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    assert.equal(maxAttempts, 8);
  });

  it('waits the scheduled delay after each failure, plus up to 10 % jitter, and nothing after the eighth', () => {
    for (let failed = 1; failed < 8; failed++) {
      const scheduled = retryDelaysMs[failed] ?? -1;
      assert.equal(nextRetryDelayMs(failed, undefined, 0), scheduled);
      assert.equal(nextRetryDelayMs(failed, undefined, 0.999_999), Math.round(scheduled * 1.099_999_9));
    }
    assert.equal(nextRetryDelayMs(8, undefined, 0.5), undefined);
    assert.equal(nextRetryDelayMs(12, 1_000, 0.5), undefined);
  });

  it('never retries before Retry-After, and ignores a shorter one', () => {
    assert.equal(nextRetryDelayMs(1, 60_000, 0), 60_000);
    assert.equal(nextRetryDelayMs(3, 60_000, 0), 1_800_000);
  });

  it('reads Retry-After as seconds or an HTTP date, capped at a day', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    assert.equal(retryAfterMs('120', now), 120_000);
    assert.equal(retryAfterMs(' 0 ', now), 0);
    assert.equal(retryAfterMs('Sat, 21 Nov 2026 12:10:00 GMT', now), 600_000);
    assert.equal(retryAfterMs('Sat, 21 Nov 2026 11:00:00 GMT', now), 0);
    assert.equal(retryAfterMs('9999999', now), 86_400_000);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(undefined, now), undefined);
  });
});
