// Filesystem adapter: the default for a single machine. Write-once comes from link(2), which refuses to replace an
// existing name, so two writers racing on one key cannot both win and a reader never sees a half-written file.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, open, readFile, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  assertValidKey,
  BlobExistsError,
  probePrefix,
  probeWithin,
  storedBlob,
  type BlobHead,
  type BlobStore,
  type PutOptions,
  type StoredBlob,
} from './blob-store.js';

export function createFsBlobStore(root: string): BlobStore {
  const base = resolve(root);
  const directorySyncs = new DirectorySyncs();
  const directoryCreations = new DirectoryCreations();

  function pathOf(key: string): string {
    assertValidKey(key);
    return join(base, ...key.split('/'));
  }

  async function put(key: string, bytes: Uint8Array, options: PutOptions): Promise<StoredBlob> {
    const path = pathOf(key);
    const dir = dirname(path);
    await directoryCreations.create(dir);
    try {
      if (options.fresh === true) await writeDurably(path, bytes);
      else await writeThroughLink(path, bytes);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      const existing = await readFile(path);
      if (!existing.equals(bytes)) throw new BlobExistsError(key);
      return storedBlob(key, existing);
    }
    await directorySyncs.sync(dir);
    return storedBlob(key, bytes);
  }

  async function get(key: string): Promise<Buffer | undefined> {
    const path = pathOf(key);
    try {
      return await readFile(path);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async function head(key: string): Promise<BlobHead | undefined> {
    const path = pathOf(key);
    try {
      const stats = await stat(path);
      if (!stats.isFile()) return undefined;
      return { size: stats.size, sha256: await hashFile(path) };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async function probe(timeoutMs: number): Promise<void> {
    await probeWithin(timeoutMs, async () => {
      const key = `${probePrefix}${randomUUID()}`;
      const bytes = Buffer.from(`probe ${key}`);
      await put(key, bytes, { contentType: 'text/plain' });
      const read = await get(key);
      await rm(pathOf(key), { force: true });
      if (read === undefined || !read.equals(bytes)) throw new Error('read back different bytes');
    });
  }

  return { kind: 'fs', put, get, head, probe, close: () => Promise.resolve() };
}

/** Writes a temporary file, then links it to `path`: readers never see a partial blob; EEXIST when `path` exists. */
async function writeThroughLink(path: string, bytes: Uint8Array): Promise<void> {
  // '~' is not allowed in keys, so a temp name never collides with a blob.
  const temp = join(dirname(path), `${basename(path)}.~${randomUUID()}`);
  try {
    await writeDurably(temp, bytes);
    await link(temp, path);
  } finally {
    await unlink(temp).catch((error: unknown) => {
      if (errorCode(error) !== 'ENOENT') throw error;
    });
  }
}

/** Read-only mode is a second guard against anything on the host rewriting an archived document in place. */
async function writeDurably(path: string, bytes: Uint8Array): Promise<void> {
  const file = await open(path, 'wx', 0o444);
  try {
    await file.writeFile(bytes);
    await file.sync();
  } finally {
    await file.close();
  }
}

/**
 * Makes new directory entries survive a power loss, not only the files' contents. Blobs linked into one directory
 * at about the same time (a document's artefacts, written together) share one fsync: a caller joins a sync that has
 * not started yet, which covers its entry because the entry was linked before the sync began; once a sync has
 * started, later callers wait for the next one.
 */
class DirectorySyncs {
  private readonly pending = new Map<string, Promise<void>>();

  sync(dir: string): Promise<void> {
    const queued = this.pending.get(dir);
    if (queued !== undefined) return queued;
    const next = new Promise<void>((resolveSync, rejectSync) => {
      setImmediate(() => {
        this.pending.delete(dir);
        syncDirectory(dir).then(resolveSync, rejectSync);
      });
    });
    this.pending.set(dir, next);
    return next;
  }
}

/** Blobs written together into a new directory (a document's artefacts) create it with one mkdir, not one each. */
class DirectoryCreations {
  private readonly pending = new Map<string, Promise<unknown>>();

  create(dir: string): Promise<unknown> {
    let creation = this.pending.get(dir);
    if (creation === undefined) {
      creation = mkdir(dir, { recursive: true }).finally(() => this.pending.delete(dir));
      this.pending.set(dir, creation);
    }
    return creation;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function errorCode(error: unknown): unknown {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}

/** A key that names a directory (a prefix of other keys) is missing, as it would be on S3. */
function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
