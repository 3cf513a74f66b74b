import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { startClaimLoop } from './claim-loop.js';
import { failureStreak } from './failure-streak.js';

function capturedLog() {
  const lines: { level: number; msg: string; failures?: number }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as never) });
  return { log, lines };
}

describe('a run of failures', () => {
  it('rests longer after each failure, up to 5 s, and logs the first, every 20th and the return', () => {
    const { log, lines } = capturedLog();
    const streak = failureStreak(log, 'claiming document sends', 500);
    const rests = Array.from({ length: 45 }, () => streak.failed(new Error('Connection terminated unexpectedly')));
    // Each rest is the doubled base with jitter on its upper half.
    rests.forEach((rest, index) => {
      const exponential = Math.min(5_000, 500 * 2 ** index);
      assert.ok(rest >= exponential / 2 && rest <= exponential, `rest ${String(index + 1)}: ${String(rest)} ms`);
    });
    streak.succeeded();
    streak.succeeded();
    assert.deepEqual(
      lines.map((line) => [line.level, line.msg, line.failures]),
      [
        [40, 'claiming document sends failed', 1],
        [40, 'claiming document sends failed', 20],
        [40, 'claiming document sends failed', 40],
        [30, 'claiming document sends works again', 45],
      ],
    );
  });

  it('makes a claim loop back off while its claims fail, and work again when they do not', async () => {
    const { log, lines } = capturedLog();
    let calls = 0;
    let worked = 0;
    const loop = startClaimLoop({
      name: 'document send',
      claim: () => {
        calls++;
        if (calls <= 3) return Promise.reject(new Error('Connection terminated unexpectedly'));
        return Promise.resolve(calls === 4 ? ['doc_1'] : []);
      },
      work: () => {
        worked++;
        return Promise.resolve();
      },
      idOf: (id) => id,
      log,
      batchSize: 4,
      concurrency: 4,
      restMs: 10,
    });
    // Rests of 50-100, 100-200 and 200-400 ms (at least 100 ms doubled, jittered): in its first 150 ms the loop asks
    // at most 3 times, where one resting 10 ms would have asked about 15.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const duringFailures = calls;
    await new Promise((resolve) => setTimeout(resolve, 850));
    await loop.stop();
    assert.ok(duringFailures <= 3, `claimed ${String(duringFailures)} times in 150 ms of failures`);
    assert.equal(worked, 1);
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['claiming document sends failed', 'claiming document sends works again'],
    );
  });
});
