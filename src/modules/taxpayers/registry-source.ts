// Where an import reads the listing from: a local .zip or .txt/.csv, or a URL (downloaded to a temporary file
// first, because a zip's directory sits at its end and DGII's CDN is known to cut long downloads short).
// Nothing here holds the file in memory: the zip is read through its central directory and one entry is
// inflated as a stream.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { DownloadError, downloadToFile, type DownloadOptions } from '../../platform/download.js';
import { isZipFile } from '../../platform/zip.js';

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

const isUrl = (location: string) => /^https?:\/\//i.test(location);

export async function openRegistrySource(location: string, download: DownloadOptions = {}): Promise<RegistrySource> {
  if (!isUrl(location)) return openFile(location, location, () => Promise.resolve());
  const dir = await mkdtemp(join(tmpdir(), 'ecf-taxpayers-'));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  try {
    const path = join(dir, 'listing');
    await downloadToFile(location, path, download);
    return await openFile(path, location, removeDir);
  } catch (error) {
    await removeDir();
    throw error instanceof DownloadError ? new RegistrySourceError(error.message) : error;
  }
}

async function openFile(path: string, label: string, cleanup: () => Promise<void>): Promise<RegistrySource> {
  let size: number;
  let zipped: boolean;
  try {
    size = (await stat(path)).size;
    zipped = await isZipFile(path);
  } catch (error) {
    throw new RegistrySourceError(`cannot read ${label}: ${(error as Error).message}`);
  }
  if (!zipped) {
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
