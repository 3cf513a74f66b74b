import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPacer } from './verifier.js';

describe('the read pacer', () => {
  it('holds reads to the byte rate: 50 kB at 100 kB/s take at least half a second', async () => {
    const pace = createPacer(100_000);
    const started = performance.now();
    for (let i = 0; i < 5; i++) await pace(10_000);
    assert.ok(performance.now() - started >= 450, `took ${String(performance.now() - started)} ms`);
  });

  it('does not wait without a rate', async () => {
    const pace = createPacer(undefined);
    const started = performance.now();
    for (let i = 0; i < 1_000; i++) await pace(1_000_000);
    assert.ok(performance.now() - started < 450);
  });
});
