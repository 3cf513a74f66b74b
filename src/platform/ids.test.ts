import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from './ids.js';

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
