import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SecretBoxError, masterKeyFingerprint, openSecret, sealSecret } from './secret-box.js';

const masterKey = randomBytes(32);
const context = 'certificate-key:cmp_123';

function sealedParts(sealed: string): string[] {
  return sealed.split('.');
}

// Swap one base64url character for another so the decoded bytes really change.
function changeFirstCharacter(part: string): string {
  return (part.startsWith('A') ? 'B' : 'A') + part.slice(1);
}

describe('sealSecret and openSecret', () => {
  it('round-trips a string, a buffer and an empty value', () => {
    assert.equal(
      openSecret(masterKey, sealSecret(masterKey, 'clave del .p12 ñ', context), context).toString('utf8'),
      'clave del .p12 ñ',
    );
    const bytes = randomBytes(300);
    assert.deepEqual(openSecret(masterKey, sealSecret(masterKey, bytes, context), context), bytes);
    assert.equal(openSecret(masterKey, sealSecret(masterKey, '', context), context).length, 0);
  });

  it('writes v1.<iv>.<tag>.<ciphertext> in base64url', () => {
    const sealed = sealSecret(masterKey, 'secret', context);
    assert.match(sealed, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    assert.ok(!sealed.includes('secret'));
  });

  it('uses a fresh IV every time, so the same secret never seals the same way twice', () => {
    const first = sealSecret(masterKey, 'same secret', context);
    const second = sealSecret(masterKey, 'same secret', context);
    assert.notEqual(sealedParts(first)[1], sealedParts(second)[1]);
    assert.notEqual(first, second);
  });

  for (const [index, name] of [
    [1, 'IV'],
    [2, 'tag'],
    [3, 'ciphertext'],
  ] as const) {
    it(`refuses a sealed secret whose ${name} was altered`, () => {
      const parts = sealedParts(sealSecret(masterKey, 'a secret worth keeping', context));
      parts[index] = changeFirstCharacter(parts[index]!);
      assert.throws(() => openSecret(masterKey, parts.join('.'), context), SecretBoxError);
    });
  }

  it('refuses an altered version, a missing part, extra characters and a truncated tag', () => {
    const sealed = sealSecret(masterKey, 'a secret', context);
    const [, iv, tag, ciphertext] = sealedParts(sealed);
    for (const altered of [
      `v2.${iv!}.${tag!}.${ciphertext!}`,
      `v1.${iv!}.${tag!}`,
      `${sealed}=`,
      `${sealed}.extra`,
      `v1.${iv!}.${tag!.slice(0, 16)}.${ciphertext!}`,
      'not a sealed secret',
    ]) {
      assert.throws(() => openSecret(masterKey, altered, context), SecretBoxError, altered);
    }
  });

  it('refuses text that differs only in the unused bits of the last base64 character', () => {
    const parts = sealedParts(sealSecret(masterKey, 'a secret', context));
    const tag = parts[2]!;
    // 16 bytes take 22 characters; the last one carries 2 bits of the tag and 4 unused bits.
    const last = tag.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    parts[2] = tag.slice(0, -1) + sibling;
    assert.deepEqual(Buffer.from(parts[2], 'base64url'), Buffer.from(tag, 'base64url'));
    assert.throws(() => openSecret(masterKey, parts.join('.'), context), SecretBoxError);
  });

  it('refuses to open a secret under another context, such as another company', () => {
    const sealed = sealSecret(masterKey, 'a secret', 'certificate-key:cmp_123');
    assert.throws(() => openSecret(masterKey, sealed, 'certificate-key:cmp_456'), SecretBoxError);
    assert.throws(() => openSecret(masterKey, sealed, 'certificate-password:cmp_123'), SecretBoxError);
  });

  it('refuses to open a secret with another master key', () => {
    const sealed = sealSecret(masterKey, 'a secret', context);
    assert.throws(() => openSecret(randomBytes(32), sealed, context), SecretBoxError);
  });

  it('refuses an empty context and a master key that is not 32 bytes', () => {
    assert.throws(() => sealSecret(masterKey, 'a secret', ''), SecretBoxError);
    assert.throws(() => sealSecret(randomBytes(16), 'a secret', context), SecretBoxError);
    assert.throws(
      () => openSecret(randomBytes(31), sealSecret(masterKey, 'a secret', context), context),
      SecretBoxError,
    );
  });
});

describe('masterKeyFingerprint', () => {
  it('is stable for one key, differs between keys and reveals neither the key nor the encryption key', () => {
    const fingerprint = masterKeyFingerprint(masterKey);
    assert.match(fingerprint, /^[0-9a-f]{32}$/);
    assert.equal(masterKeyFingerprint(Buffer.from(masterKey)), fingerprint);
    assert.notEqual(masterKeyFingerprint(randomBytes(32)), fingerprint);
    assert.ok(!masterKey.toString('hex').includes(fingerprint));
  });
});
