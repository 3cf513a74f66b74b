// Polls `read` until `done` holds of its value, failing with the last value seen after `timeoutMs`.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(value)}`);
    await sleep(100);
  }
}
