// The port every archive write goes through. The fiscal archive keeps each signed document for ten years, so
// objects are write-once: a key, once written, always returns the same bytes.

import { createHash } from 'node:crypto';

export interface PutOptions {
  contentType: string;
  /** S3 Object Lock COMPLIANCE retention; ignored by the filesystem adapter. */
  retainUntil?: Date;
  /**
   * Nothing reads the key until the caller records it after `put` resolves: it names an id minted for this write,
   * or a version the caller takes only if its own bytes land there (an existing key with other bytes is
   * BlobExistsError, and the caller moves on). The filesystem adapter then writes the final name in place instead
   * of through a temporary file and link(2), which saves two system calls per blob on the hot paths; a writer that
   * dies mid-write leaves a partial file that nothing names.
   */
  fresh?: boolean;
}

export interface StoredBlob {
  key: string;
  /** Lowercase hex. */
  sha256: string;
  size: number;
}

export interface BlobHead {
  size: number;
  /** Undefined when the object was written without our metadata (S3 only). */
  sha256: string | undefined;
  /** When the object was written (file mtime, S3 LastModified). */
  modifiedAt: Date;
}

/**
 * One stored object as a listing names it. Its size and write time come with it when the listing carries them
 * (S3's does); the filesystem's leaves them out, as a stat per file cost the archive verifier more than the rest
 * of the listing and it needs them only for the rare object no record names: `head` has them.
 */
export interface ListedBlob {
  key: string;
  size?: number;
  /** When the object was written (file mtime, S3 LastModified). */
  modifiedAt?: Date;
}

export interface ListOptions {
  /** Only keys that start with this. */
  prefix?: string;
  /** Only keys after this one (byte order); it need not name an object. */
  after?: string;
  limit: number;
}

/**
 * An object's S3 Object Lock retention as S3 reports it; both fields undefined when it has none. Nothing here says
 * whether it is long enough: the caller compares `retainUntil` with what it expects.
 */
export interface ObjectRetention {
  mode: 'COMPLIANCE' | 'GOVERNANCE' | undefined;
  retainUntil: Date | undefined;
}

export interface BlobStore {
  readonly kind: 'fs' | 's3';
  /** Same bytes again: idempotent success. Different bytes: BlobExistsError, and the stored bytes stay. */
  put(key: string, bytes: Uint8Array, options: PutOptions): Promise<StoredBlob>;
  get(key: string): Promise<Buffer | undefined>;
  head(key: string): Promise<BlobHead | undefined>;
  /**
   * Up to `limit` objects in byte order of their keys (UTF-8, as S3 lists them; see compareKeys), never the probe's:
   * the archive verifier walks the store beside the records sorted the same way, to find what one has and the other
   * lacks. The next page starts after the last key of this one. Size and write time only where the store lists
   * them without a request per object (ListedBlob).
   */
  list(options: ListOptions): Promise<ListedBlob[]>;
  /**
   * The object's Object Lock retention. S3: the retention of the key's current version, both fields undefined when
   * it has none (or the bucket has no Object Lock), undefined when the object is missing. Filesystem: always
   * undefined, as it has no such thing.
   */
  retentionOf(key: string): Promise<ObjectRetention | undefined>;
  /**
   * Filesystem only: the file that holds the key's bytes (whether or not it exists), for a reader on another thread
   * (the archive verifier's check threads read and check whole slices there). S3 has no such thing.
   */
  filePath?(key: string): string;
  /** Writes, reads back and compares a small object under `_probe/`; rejects with a short reason. */
  probe(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export class BlobExistsError extends Error {
  constructor(readonly key: string) {
    super(`Blob ${key} already exists with different content`);
    this.name = 'BlobExistsError';
  }
}

export class InvalidBlobKeyError extends Error {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`Invalid blob key "${key.slice(0, 80)}": ${reason}`);
    this.name = 'InvalidBlobKeyError';
  }
}

/**
 * The store cannot serve the call just now: S3 out of reach, timing out or failing on its side (5xx), a disk
 * answering EIO. Worth trying again later; HTTP answers it 503 storage_unavailable.
 */
export class StorageUnavailableError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

/**
 * The store has no room for a write (ENOSPC, EDQUOT). Nothing of the write is kept (the adapter removes what it had
 * written), so it leaves no orphan for the archive verifier; HTTP answers it 507 storage_full.
 */
export class StorageFullError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'StorageFullError';
  }
}

export const probePrefix = '_probe/';

const maxKeyLength = 512;
// The filesystem adapter adds a 38-character temp suffix to the last segment; names must stay under 255 bytes.
const maxSegmentLength = 200;

/**
 * Beyond the character set, empty and `.` segments are refused too: the filesystem would fold `a//b` and `a/./b`
 * into `a/b` while S3 keeps them apart, and the two adapters must agree on what a key names.
 */
export function assertValidKey(key: string): void {
  if (key.length === 0) throw new InvalidBlobKeyError(key, 'is empty');
  if (key.length > maxKeyLength) throw new InvalidBlobKeyError(key, `is longer than ${maxKeyLength} characters`);
  if (!/^[A-Za-z0-9._/-]+$/.test(key)) throw new InvalidBlobKeyError(key, 'may hold only A-Z a-z 0-9 . _ / -');
  if (key.includes('..')) throw new InvalidBlobKeyError(key, 'may not contain ".."');
  if (key.startsWith('/')) throw new InvalidBlobKeyError(key, 'may not start with "/"');
  const segments = key.split('/');
  if (segments.some((segment) => segment === '' || segment === '.')) {
    throw new InvalidBlobKeyError(key, 'may not have empty or "." segments');
  }
  if (segments.some((segment) => segment.length > maxSegmentLength)) {
    throw new InvalidBlobKeyError(key, `may not have a segment longer than ${maxSegmentLength} characters`);
  }
}

/** The order `list` returns keys in: their UTF-8 bytes, as S3 lists them (not JavaScript's UTF-16 `<`). */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * An archived artefact's bytes, checked against the SHA-256 recorded when it was archived: what is served or sent
 * again is exactly what was kept. Throws when the blob is gone or differs (an archive fault, never the caller's).
 */
export async function readArchived(blobs: BlobStore, stored: { blob_key: string; sha256: string }): Promise<Buffer> {
  const bytes = await blobs.get(stored.blob_key);
  if (bytes === undefined) throw new Error(`archived blob ${stored.blob_key} is missing`);
  if (sha256Hex(bytes) !== stored.sha256)
    throw new Error(`archived blob ${stored.blob_key} does not match its recorded SHA-256`);
  return bytes;
}

export function storedBlob(key: string, bytes: Uint8Array): StoredBlob {
  return { key, sha256: sha256Hex(bytes), size: bytes.byteLength };
}

/** Runs a readiness check against a deadline; the reason stays short because it ends up in a health response. */
export async function probeWithin(timeoutMs: number, check: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error('deadline'));
    }, timeoutMs);
  });
  try {
    await Promise.race([check(controller.signal), deadline]);
  } catch (error) {
    if (controller.signal.aborted) throw new Error(`storage probe timed out after ${timeoutMs} ms`, { cause: error });
    throw new Error(`storage probe failed: ${shortReason(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

function shortReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code} ${error.message}` : error.message;
}
