// Where an import reads the listing from: a local .zip or .txt/.csv, or a URL (downloaded to a temporary file
// first, because a zip's directory sits at its end and DGII's CDN is known to cut long downloads short).
// Nothing here holds the file in memory: the zip is read through its central directory and one entry is
// inflated as a stream.
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

export class RegistrySourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistrySourceError';
  }
}

export interface RegistrySource {
  /** The bytes of the listing (the zip entry, already inflated). */
  stream: Readable;
  /** Size of those bytes when known, for progress and ETA. */
  totalBytes: number | undefined;
  /** What was read: the file, or `file.zip!ENTRY.TXT`. */
  name: string;
  close(): Promise<void>;
}

export interface DownloadOptions {
  /** Aborts a download that has not finished in this time. */
  timeoutMs?: number;
  /** How many times a cut-short download is resumed with a Range request. */
  resumeAttempts?: number;
  fetch?: typeof fetch;
}

const isUrl = (location: string) => /^https?:\/\//i.test(location);

export async function openRegistrySource(location: string, download: DownloadOptions = {}): Promise<RegistrySource> {
  if (!isUrl(location)) return openFile(location, location, () => Promise.resolve());
  const dir = await mkdtemp(join(tmpdir(), 'ecf-taxpayers-'));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  try {
    const path = join(dir, 'listing');
    await downloadTo(location, path, download);
    return await openFile(path, location, removeDir);
  } catch (error) {
    await removeDir();
    throw error;
  }
}

async function openFile(path: string, label: string, cleanup: () => Promise<void>): Promise<RegistrySource> {
  let size: number;
  const magic = Buffer.alloc(4);
  try {
    size = (await stat(path)).size;
    const handle = await open(path, 'r');
    try {
      await handle.read(magic, 0, 4, 0);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new RegistrySourceError(`cannot read ${label}: ${(error as Error).message}`);
  }
  if (magic.readUInt32LE(0) !== 0x04034b50) {
    const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
    return {
      stream,
      totalBytes: size,
      name: label,
      close: async () => {
        stream.destroy();
        await cleanup();
      },
    };
  }
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw new RegistrySourceError(`${label} is not a readable zip: ${(error as Error).message}`);
  }
  try {
    for await (const entry of zip.eachEntry()) {
      if (!/\.(txt|csv)$/i.test(entry.fileName)) continue;
      const stream = await zip.openReadStreamPromise(entry);
      return {
        stream,
        totalBytes: entry.uncompressedSize,
        name: `${label}!${entry.fileName}`,
        async close() {
          stream.destroy();
          zip.close();
          await cleanup();
        },
      };
    }
  } catch (error) {
    zip.close();
    throw new RegistrySourceError(`${label}: ${(error as Error).message}`);
  }
  zip.close();
  throw new RegistrySourceError(`${label} holds no .TXT or .CSV listing`);
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

async function downloadTo(url: string, path: string, options: DownloadOptions): Promise<void> {
  const doFetch = options.fetch ?? fetch;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 30 * 60_000);
  const attempts = options.resumeAttempts ?? 3;
  let written = 0;
  let expected: number | undefined;
  for (let attempt = 0; attempt <= attempts; attempt++) {
    const headers: Record<string, string> = written > 0 ? { range: `bytes=${written}-` } : {};
    let response: Response;
    try {
      response = await doFetch(url, { headers, signal, redirect: 'follow' });
    } catch (error) {
      if (attempt < attempts && written > 0) continue;
      throw new RegistrySourceError(`cannot download ${url}: ${(error as Error).message}`);
    }
    if (written > 0 && response.status !== 206) {
      throw new RegistrySourceError(
        `${url} was cut short at ${written} bytes and the server does not resume (HTTP ${response.status})`,
      );
    }
    if (written === 0 && response.status !== 200)
      throw new RegistrySourceError(`cannot download ${url}: HTTP ${response.status}`);
    if (response.body === null) throw new RegistrySourceError(`cannot download ${url}: empty response`);
    if (written === 0) {
      const length = Number(response.headers.get('content-length') ?? Number.NaN);
      expected = Number.isSafeInteger(length) ? length : undefined;
    }
    // Each chunk is on disk before the next is read, so a cut leaves exactly what arrived, to resume from.
    const file = await open(path, written === 0 ? 'w' : 'a');
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) await file.write(chunk);
    } catch (error) {
      await file.close();
      written = await sizeOf(path);
      if (attempt < attempts && expected !== undefined && !signal.aborted) continue;
      throw new RegistrySourceError(`download of ${url} failed: ${(error as Error).message}`);
    }
    await file.close();
    written = await sizeOf(path);
    if (expected === undefined || written >= expected) return;
  }
  throw new RegistrySourceError(`download of ${url} stopped at ${written} of ${String(expected)} bytes`);
}
