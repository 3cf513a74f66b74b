import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentReads } from './recent-reads.js';

describe('RecentReads', () => {
  /** `found`: what the database holds for the key (null: nothing); by default a value naming the load that read it. */
  function counted() {
    let now = 0;
    let loads = 0;
    const reads = new RecentReads<{ group: string; text: string }>(
      1_000,
      (value) => value.group,
      3,
      () => now,
    );
    const read = async (key: string, group = 'cmp_a', found?: string | null) => {
      const value = await reads.read(key, () => {
        loads++;
        return Promise.resolve(found === null ? undefined : { group, text: found ?? `${key}#${String(loads)}` });
      });
      return value?.text;
    };
    return { reads, read, advance: (ms: number) => (now += ms), loads: () => loads };
  }

  it('answers a repeated read from memory until ttlMs have passed, then reads again', async () => {
    const { read, advance, loads } = counted();
    assert.equal(await read('k'), 'k#1');
    advance(999);
    assert.equal(await read('k'), 'k#1');
    assert.equal(loads(), 1);
    advance(1);
    assert.equal(await read('k'), 'k#2');
  });

  it('forgets one key, or every key of a group, at once', async () => {
    const { reads, read } = counted();
    await read('k1', 'cmp_a');
    await read('k2', 'cmp_b');
    reads.forget('k1');
    assert.equal(await read('k1', 'cmp_a'), 'k1#3');
    reads.forgetGroup('cmp_b');
    assert.equal(await read('k2', 'cmp_b'), 'k2#4');
    assert.equal(await read('k1', 'cmp_a'), 'k1#3');
  });

  it('keeps nothing for a read that found nothing, and stays within its size', async () => {
    const { read, loads } = counted();
    assert.equal(await read('gone', 'cmp_a', null), undefined);
    assert.equal(await read('gone', 'cmp_a', 'back'), 'back');
    for (const key of ['a', 'b', 'c']) await read(key);
    const before = loads();
    assert.equal(await read('gone', 'cmp_a', 'fresh'), 'fresh', 'the full map was cleared to stay within 3 entries');
    assert.equal(loads(), before + 1);
  });
});
