// Where `ecf xsd install` reads DGII's fifteen XSDs from: a directory, a zip, or an http(s) URL to a zip (a URL
// must be a zip: a web page listing files cannot be read reliably). Files are found at any depth and known by
// their name, ours (`e-CF-31.xsd`) or DGII's (`e-CF 31 v.1.0.xsd`), in any case (kindOfSchemaFile); other files are
// ignored and never inflated, so a zip bomb beside the XSDs costs nothing and an XSD is read only up to a bound.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import yauzl from 'yauzl';
import { kindOfSchemaFile, schemaKinds, type SchemaKind } from '../../fiscal/xsd/index.js';
import { DownloadError, downloadToFile, type DownloadOptions } from '../download.js';
import { isZipFile } from '../zip.js';

export class XsdSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XsdSourceError';
  }
}

export interface XsdSourceFile {
  kind: SchemaKind;
  /** Where it was found in the source: a path under the directory or the zip. */
  name: string;
  bytes: Buffer;
}

export interface XsdSource {
  /** The directory, zip or URL as given. */
  label: string;
  /** One per kind, in schemaKinds' order. */
  files: XsdSourceFile[];
}

// DGII's largest XSD is 124 KB; the zip DGII publishes them in is under 1 MB.
const maxXsdBytes = 4 * 1024 * 1024;
const maxZipEntries = 10_000;
const maxDownloadBytes = 64 * 1024 * 1024;

interface Candidate {
  kind: SchemaKind;
  name: string;
  read(): Promise<Buffer>;
}

export async function readXsdSource(location: string, download: DownloadOptions = {}): Promise<XsdSource> {
  if (/^https?:\/\//i.test(location)) return readDownloadedZip(location, download);
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(location)).isDirectory();
  } catch (error) {
    throw new XsdSourceError(`cannot read ${location}: ${messageOf(error)}`);
  }
  if (isDirectory) return collect(location, await directoryCandidates(location));
  if (!(await isZipFile(location)))
    throw new XsdSourceError(`${location} is neither a directory nor a zip of DGII's XSDs`);
  return readZip(location, location);
}

async function readDownloadedZip(url: string, download: DownloadOptions): Promise<XsdSource> {
  const dir = await mkdtemp(join(tmpdir(), 'ecf-xsd-'));
  try {
    const path = join(dir, 'xsd.zip');
    try {
      await downloadToFile(url, path, { maxBytes: maxDownloadBytes, timeoutMs: 5 * 60_000, ...download });
    } catch (error) {
      throw error instanceof DownloadError ? new XsdSourceError(error.message) : error;
    }
    if (!(await isZipFile(path)))
      throw new XsdSourceError(`${url} did not answer with a zip (a URL must point at a zip of DGII's XSDs)`);
    return await readZip(path, url);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function directoryCandidates(dir: string): Promise<Candidate[]> {
  let paths: string[];
  try {
    paths = await readdir(dir, { recursive: true });
  } catch (error) {
    throw new XsdSourceError(`cannot read ${dir}: ${messageOf(error)}`);
  }
  const candidates: Candidate[] = [];
  for (const path of paths) {
    const kind = kindOfSchemaFile(basename(path));
    if (kind === undefined) continue;
    const full = join(dir, path);
    const info = await stat(full);
    if (!info.isFile()) continue;
    if (info.size > maxXsdBytes) throw tooLarge(path, dir);
    candidates.push({ kind, name: path, read: () => readFile(full) });
  }
  return candidates;
}

async function readZip(path: string, label: string): Promise<XsdSource> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw new XsdSourceError(`${label} is not a readable zip: ${messageOf(error)}`);
  }
  try {
    if (zip.entryCount > maxZipEntries)
      throw new XsdSourceError(`${label} holds ${zip.entryCount} entries, more than the ${maxZipEntries} allowed`);
    const candidates: Candidate[] = [];
    try {
      for await (const entry of zip.eachEntry()) {
        const kind = kindOfSchemaFile(basename(entry.fileName));
        if (kind === undefined || entry.fileName.endsWith('/')) continue;
        if (entry.uncompressedSize > maxXsdBytes) throw tooLarge(entry.fileName, label);
        candidates.push({ kind, name: entry.fileName, read: () => inflate(zip, entry, label) });
      }
    } catch (error) {
      if (error instanceof XsdSourceError) throw error;
      throw new XsdSourceError(`${label} is not a readable zip: ${messageOf(error)}`);
    }
    return await collect(label, candidates);
  } finally {
    zip.close();
  }
}

/** An entry's bytes, counted as they inflate (yauzl also checks them against the declared size). */
async function inflate(zip: yauzl.ZipFile, entry: yauzl.Entry, label: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    const stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxXsdBytes) {
        stream.destroy();
        throw tooLarge(entry.fileName, label);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof XsdSourceError) throw error;
    throw new XsdSourceError(`${entry.fileName} in ${label} cannot be inflated: ${messageOf(error)}`);
  }
  return Buffer.concat(chunks);
}

/** Exactly one file per kind, all fifteen, read; else an error naming the duplicates or the missing ones. */
async function collect(label: string, candidates: Candidate[]): Promise<XsdSource> {
  const byKind = new Map<SchemaKind, Candidate>();
  for (const candidate of candidates) {
    const other = byKind.get(candidate.kind);
    if (other !== undefined)
      throw new XsdSourceError(`${label} holds two XSDs for ${candidate.kind}: ${other.name} and ${candidate.name}`);
    byKind.set(candidate.kind, candidate);
  }
  const missing = schemaKinds.filter((kind) => !byKind.has(kind));
  if (missing.length > 0)
    throw new XsdSourceError(
      `${label} lacks the XSD for ${missing.map((kind) => `${kind} (${kind}.xsd)`).join(', ')}; nothing was installed`,
    );
  const files: XsdSourceFile[] = [];
  for (const kind of schemaKinds) {
    const candidate = byKind.get(kind);
    if (candidate !== undefined) files.push({ kind, name: candidate.name, bytes: await candidate.read() });
  }
  return { label, files };
}

function tooLarge(name: string, label: string): XsdSourceError {
  return new XsdSourceError(`${name} in ${label} is larger than ${maxXsdBytes} bytes, the bound for one XSD`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
