// The master key encrypts secrets at rest. In production it must come from MASTER_KEY; elsewhere it is
// generated once and kept under DATA_DIR (mode 0600). A fingerprint stored in the database makes a key that
// does not match the data fail at start instead of at the first decryption.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { masterKeyFingerprint } from './crypto/secret-box.js';
import type { Db } from './db/database.js';

export class MasterKeyMismatchError extends Error {
  constructor() {
    super(
      'MASTER_KEY does not match the key this database was set up with; secrets stored with the other key could not be read.',
    );
    this.name = 'MasterKeyMismatchError';
  }
}

/** The configured key, else the one kept under DATA_DIR; undefined when neither is there (nothing is made). */
export function existingMasterKey(configured: Buffer | undefined, dataDir: string): Buffer | undefined {
  if (configured !== undefined) return configured;
  const path = join(dataDir, 'master.key');
  if (!existsSync(path)) return undefined;
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${path} does not hold a 32-byte base64 key`);
  return key;
}

export function resolveMasterKey(configured: Buffer | undefined, dataDir: string): Buffer {
  const existing = existingMasterKey(configured, dataDir);
  if (existing !== undefined) return existing;
  const path = join(dataDir, 'master.key');
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/** Whether `key` is the one the database was set up with; undefined before its first start recorded one. Reads only. */
export async function masterKeyMatches(db: Db, key: Buffer): Promise<boolean | undefined> {
  const stored = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', 'master_key_fingerprint')
    .executeTakeFirst();
  return stored === undefined ? undefined : stored.value === masterKeyFingerprint(key);
}

export async function checkMasterKey(db: Db, key: Buffer): Promise<void> {
  const fingerprint = masterKeyFingerprint(key);
  await db
    .insertInto('settings')
    .values({ key: 'master_key_fingerprint', value: fingerprint, updated_at: new Date() })
    .onConflict((conflict) => conflict.column('key').doNothing())
    .execute();
  const stored = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', 'master_key_fingerprint')
    .executeTakeFirstOrThrow();
  if (stored.value !== fingerprint) throw new MasterKeyMismatchError();
}
