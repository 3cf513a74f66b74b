// Secrets at rest (certificate keys, .p12 passwords, webhook secrets) sealed with the service's master key.
// Format: v1.<iv>.<tag>.<ciphertext>, each part base64url. AES-256-GCM with a random 96-bit IV; the caller's
// context (for example `certificate-key:cmp_123`) is the additional authenticated data, so a sealed value copied to
// another row or company fails to open instead of decrypting there.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MASTER_KEY_BYTES = 32;
// Distinct HKDF labels keep the encryption key and the stored fingerprint independent of each other.
const ENCRYPTION_INFO = 'ecf-service secret-box v1';
const FINGERPRINT_INFO = 'ecf-service master-key fingerprint v1';
const FINGERPRINT_BYTES = 16;

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export function sealSecret(masterKey: Buffer, plaintext: Buffer | string, context: string): string {
  const key = deriveKey(masterKey, ENCRYPTION_INFO, 32);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(contextBytes(context));
  const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
  const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'));
  return [VERSION, ...parts].join('.');
}

export function openSecret(masterKey: Buffer, sealed: string, context: string): Buffer {
  const key = deriveKey(masterKey, ENCRYPTION_INFO, 32);
  const { iv, tag, ciphertext } = parseSealed(sealed);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(contextBytes(context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new SecretBoxError('sealed secret could not be opened: wrong master key, wrong context or altered data');
  }
}

/** A value derived from the master key, safe to store, to notice at start that the key does not match the database. */
export function masterKeyFingerprint(masterKey: Buffer): string {
  return deriveKey(masterKey, FINGERPRINT_INFO, FINGERPRINT_BYTES).toString('hex');
}

function deriveKey(masterKey: Buffer, info: string, length: number): Buffer {
  if (masterKey.length !== MASTER_KEY_BYTES) throw new SecretBoxError(`master key must be ${MASTER_KEY_BYTES} bytes`);
  // No salt: the master key is already uniformly random, HKDF here only separates purposes.
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, length));
}

function contextBytes(context: string): Buffer {
  // An empty context would bind the secret to nothing, which is always a caller bug.
  if (context.length === 0) throw new SecretBoxError('context is required');
  return Buffer.from(context, 'utf8');
}

function parseSealed(sealed: string): { iv: Buffer; tag: Buffer; ciphertext: Buffer } {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION)
    throw new SecretBoxError('sealed secret is malformed or of an unknown version');
  const [iv, tag, ciphertext] = parts.slice(1).map(decodePart);
  if (iv?.length !== IV_BYTES || tag?.length !== TAG_BYTES || ciphertext === undefined) {
    throw new SecretBoxError('sealed secret is malformed');
  }
  return { iv, tag, ciphertext };
}

// Node's base64url decoder skips characters it does not know and ignores trailing bits; insisting on the canonical
// encoding means any edit to the text is an error rather than a value that decodes the same.
function decodePart(part: string): Buffer {
  const bytes = Buffer.from(part, 'base64url');
  if (bytes.toString('base64url') !== part) throw new SecretBoxError('sealed secret is malformed');
  return bytes;
}
