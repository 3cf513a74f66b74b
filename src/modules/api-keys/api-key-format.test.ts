import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayPrefix, generateApiKey, keyIdFor, parseApiKey } from './api-key-format.js';

describe('API key format', () => {
  for (const [environment, tag] of [
    ['TEST', 'test'],
    ['CERT', 'cert'],
    ['PRODUCTION', 'live'],
  ] as const) {
    it(`names the ${environment} environment in the prefix and parses back`, () => {
      const { key, lookup } = generateApiKey(environment);
      assert.match(key, new RegExp(`^ecf_${tag}_[0-9A-Za-z]{16}_[0-9A-Za-z]{38}$`));
      assert.deepEqual(parseApiKey(key), { environment, lookup });
    });
  }

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 500 }, () => generateApiKey('TEST').key));
    assert.equal(keys.size, 500);
  });

  it('rejects any single-character change by its checksum', () => {
    const { key } = generateApiKey('TEST');
    let accepted = 0;
    for (let i = 'ecf_test_'.length; i < key.length; i++) {
      if (key[i] === '_') continue;
      const changed = `${key.slice(0, i)}${key[i] === 'a' ? 'b' : 'a'}${key.slice(i + 1)}`;
      if (parseApiKey(changed) !== undefined) accepted++;
    }
    assert.equal(accepted, 0);
  });

  for (const text of [
    '',
    'nope',
    'ecf_prod_0123456789abcdef_0123456789abcdef0123456789abcdefABCDEF',
    'Bearer ecf_test_x',
    'ecf_test_0123456789abcdef_0123456789abcdef0123456789abcdef',
  ]) {
    it(`rejects the malformed text "${text}"`, () => {
      assert.equal(parseApiKey(text), undefined);
    });
  }

  it('shows a recognisable prefix that cannot be used as a key', () => {
    const { key, lookup } = generateApiKey('TEST');
    const shown = displayPrefix(key);
    assert.ok(key.startsWith(shown.slice(0, -1)));
    assert.ok(shown.length < 20);
    assert.equal(keyIdFor(lookup), `key_${lookup}`);
  });
});
