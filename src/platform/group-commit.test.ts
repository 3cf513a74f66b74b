import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupCommit } from './group-commit.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('groupCommit', () => {
  it('runs the first item alone and the ones asked for meanwhile in one batch, each settling with its own output', async () => {
    const batches: number[][] = [];
    const ask = groupCommit(async (items: number[]) => {
      batches.push(items);
      await pause(20);
      return items.map((item) => item * 10);
    });
    assert.deepEqual(await Promise.all([0, 1, 2, 3, 4, 5].map((n) => ask(n))), [0, 10, 20, 30, 40, 50]);
    assert.deepEqual(batches, [[0], [1, 2, 3, 4, 5]]);
    assert.equal(await ask(6), 60);
    assert.deepEqual(batches.at(-1), [6]);
  });

  it('batches keys apart and runs their batches side by side', async () => {
    const running = new Set<string>();
    let together = false;
    const batches: string[][] = [];
    const ask = groupCommit(async (items: string[]) => {
      const key = (items[0] ?? '').slice(0, 1);
      running.add(key);
      if (running.size > 1) together = true;
      batches.push(items);
      await pause(10);
      running.delete(key);
      return items;
    });
    await Promise.all(['a1', 'b1', 'a2', 'b2', 'a3'].map((item) => ask(item, item.slice(0, 1))));
    assert.deepEqual(batches, [['a1'], ['b1'], ['a2', 'a3'], ['b2']]);
    assert.equal(together, true);
  });

  it('with gatherTick, starts the first batch with everything asked in the tick; with parallel, runs that many batches at once and no more', async () => {
    const batches: number[][] = [];
    const finish: (() => void)[] = [];
    const ask = groupCommit(
      async (items: number[]) => {
        batches.push(items);
        await new Promise<void>((resolve) => finish.push(resolve));
        return items;
      },
      { parallel: 2, gatherTick: true },
    );
    const settled = [0, 1, 2].map((n) => ask(n));
    await pause(0);
    assert.deepEqual(batches, [[0, 1, 2]]);
    settled.push(ask(3)); // the second runner takes it alone
    await pause(0);
    settled.push(...[4, 5, 6].map((n) => ask(n))); // both runners busy: these wait for the first to free
    await pause(0);
    assert.deepEqual(batches, [[0, 1, 2], [3]]);
    finish[0]?.();
    await pause(0);
    assert.deepEqual(batches, [[0, 1, 2], [3], [4, 5, 6]]);
    finish[1]?.();
    finish[2]?.();
    assert.deepEqual(await Promise.all(settled), [0, 1, 2, 3, 4, 5, 6]);
  });

  it('takes at most maxBatch items a batch', async () => {
    const sizes: number[] = [];
    const ask = groupCommit(
      async (items: number[]) => {
        sizes.push(items.length);
        await pause(5);
        return items;
      },
      { maxBatch: 3 },
    );
    await Promise.all(Array.from({ length: 8 }, (_, i) => ask(i)));
    assert.deepEqual(sizes, [1, 3, 3, 1]);
  });

  it('fails every item of a batch that failed, or answered too few outputs, and goes on with the next', async () => {
    let calls = 0;
    const ask = groupCommit(async (items: number[]) => {
      calls++;
      await pause(10);
      if (calls === 2) throw new Error('connection lost');
      return calls === 3 ? items.slice(1) : items;
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => ask(n)));
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as Error).message : outcome.value)),
      [1, 'connection lost', 'connection lost'],
    );
    await assert.rejects(
      Promise.all([ask(4), ask(5)]),
      /answered 1 outputs for 2 items|answered 0 outputs for 1 items/,
    );
    assert.equal(await ask(6), 6);
  });

  it('with isolateFailures, runs each item of a failed batch alone: only the bad one fails', async () => {
    const batches: number[][] = [];
    const ask = groupCommit(
      async (items: number[]) => {
        batches.push(items);
        await pause(5);
        if (items.includes(13)) throw new Error('13 refused');
        return items.map((n) => n * 2);
      },
      { isolateFailures: true, gatherTick: true },
    );
    const outcomes = await Promise.allSettled([12, 13, 14].map((n) => ask(n)));
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as Error).message : outcome.value)),
      [24, '13 refused', 28],
    );
    assert.deepEqual(batches, [[12, 13, 14], [12], [13], [14]]);
  });
});
