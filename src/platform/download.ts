// Downloads a URL to a file, resuming a download cut short with Range requests (DGII's CDN is known to cut long
// downloads). Each chunk is on disk before the next is read, so a cut leaves exactly what arrived, to resume from.
import { open, stat } from 'node:fs/promises';

export class DownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadError';
  }
}

export interface DownloadOptions {
  /** Aborts a download that has not finished in this time. */
  timeoutMs?: number;
  /** How many times a cut-short download is resumed with a Range request. */
  resumeAttempts?: number;
  /** Stops a download that grows past this many bytes (unset: no bound). */
  maxBytes?: number;
  fetch?: typeof fetch;
}

export async function downloadToFile(url: string, path: string, options: DownloadOptions = {}): Promise<void> {
  const doFetch = options.fetch ?? fetch;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 30 * 60_000);
  const attempts = options.resumeAttempts ?? 3;
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const tooLarge = () => new DownloadError(`${url} is larger than ${maxBytes} bytes, the bound for this download`);
  let written = 0;
  let expected: number | undefined;
  for (let attempt = 0; attempt <= attempts; attempt++) {
    const headers: Record<string, string> = written > 0 ? { range: `bytes=${written}-` } : {};
    let response: Response;
    try {
      response = await doFetch(url, { headers, signal, redirect: 'follow' });
    } catch (error) {
      if (attempt < attempts && written > 0) continue;
      throw new DownloadError(`cannot download ${url}: ${(error as Error).message}`);
    }
    if (written > 0 && response.status !== 206) {
      throw new DownloadError(
        `${url} was cut short at ${written} bytes and the server does not resume (HTTP ${response.status})`,
      );
    }
    if (written === 0 && response.status !== 200)
      throw new DownloadError(`cannot download ${url}: HTTP ${response.status}`);
    if (response.body === null) throw new DownloadError(`cannot download ${url}: empty response`);
    if (written === 0) {
      const length = Number(response.headers.get('content-length') ?? Number.NaN);
      expected = Number.isSafeInteger(length) ? length : undefined;
      if (expected !== undefined && expected > maxBytes) throw tooLarge();
    }
    const file = await open(path, written === 0 ? 'w' : 'a');
    let received = written;
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        received += chunk.length;
        if (received > maxBytes) throw tooLarge();
        await file.write(chunk);
      }
    } catch (error) {
      await file.close();
      if (error instanceof DownloadError) throw error;
      written = await sizeOf(path);
      if (attempt < attempts && expected !== undefined && !signal.aborted) continue;
      throw new DownloadError(`download of ${url} failed: ${(error as Error).message}`);
    }
    await file.close();
    written = await sizeOf(path);
    if (expected === undefined || written >= expected) return;
  }
  throw new DownloadError(`download of ${url} stopped at ${written} of ${String(expected)} bytes`);
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
