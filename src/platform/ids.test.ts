import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId, randomBase62 } from './ids.js';

describe('newId', () => {
  it('gives the prefix and 20 base62 characters', () => {
    for (const prefix of ['cmp', 'doc', 'whk', 'evt'] as const)
      assert.match(newId(prefix), new RegExp(`^${prefix}_[0-9A-Za-z]{20}$`));
  });

  it('gives webhook deliveries 24 characters, as they always had', () => {
    assert.match(newId('msg'), /^msg_[0-9A-Za-z]{24}$/);
  });

  it('never gives the same id twice in a run', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('doc')));
    assert.equal(ids.size, 10_000);
  });
});

describe('randomBase62', () => {
  it('uses every character of the alphabet, none favoured beyond chance', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) for (const c of newId('doc').slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
    // 40,000 characters over 62: about 645 each (σ ≈ 25); 0-7 would get about 806 if bytes ≥ 248 were not skipped.
    assert.equal(counts.size, 62);
    for (const [character, count] of counts) assert.ok(count > 520 && count < 780, `${character}: ${String(count)}`);
  });

  it('skips the bytes that would bias it', () => {
    const bytes = [255, 248, 0, 61, 62, 247];
    assert.equal(
      randomBase62(4, () => bytes.shift() ?? 0),
      '0z0z',
    );
  });
});
