// Loads DGII's taxpayer listing into the registry: streams the source line by line, parses, and upserts in
// batches while the next batch is being parsed. Memory stays at a couple of batches whatever the file size.
// Bad rows are counted by reason (with the first few examples) and skipped; only an unreadable source, or a file
// that is mostly not in a known layout, stops the import.
import type { Readable } from 'node:stream';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { ProgressSink } from '../../platform/progress.js';
import {
  decodeLine,
  detectLayout,
  parseLine,
  type RegistryLayout,
  type RegistryRow,
  type RejectReason,
} from './registry-file.js';
import type { DownloadOptions } from '../../platform/download.js';
import { openRegistrySource, RegistrySourceError } from './registry-source.js';
import { upsertTaxpayers } from './taxpayers.repo.js';
import { checkTaxpayerId } from '../../fiscal/taxpayer-id.js';
import type { TaxpayersTables } from './tables.js';

export interface RejectedRows {
  count: number;
  /** The first few, by line number (1-based) in the file. */
  examples: { line: number; detail: string }[];
}

export interface ImportReport {
  source: string;
  layout: RegistryLayout | undefined;
  /** Data lines read (blank lines and the header not counted). */
  rows: number;
  /** Rows written or confirmed: inserted + updated + unchanged. */
  imported: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Rows listed again later in the same file; the later one wins. */
  duplicates: number;
  /** Accepted numbers that fail the check-digit rules: DGII issued a few such (src/fiscal/taxpayer-id.ts). */
  checkDigitExceptions: number;
  rejected: number;
  rejectedByReason: Partial<Record<RejectReason, RejectedRows>>;
  durationMs: number;
  rowsPerSecond: number;
}

export class RegistryLayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryLayoutError';
  }
}

export interface ImportOptions {
  progress?: ProgressSink;
  /** Rows per INSERT (sent as one array per column; 5,000 measured best on PostgreSQL). */
  batchSize?: number;
  /** Examples kept per rejection reason. */
  examples?: number;
  download?: DownloadOptions;
}

export interface ImportDeps {
  db: Db<TaxpayersTables>;
  clock: Clock;
}

const layoutSample = 50;
const maxLineBytes = 64 * 1024;

/** Imports from a local .zip/.txt/.csv path or an http(s) URL. */
export async function importRegistry(
  deps: ImportDeps,
  location: string,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const source = await openRegistrySource(location, options.download);
  try {
    return await importRegistryStream(deps, source.stream, {
      ...options,
      totalBytes: source.totalBytes,
      name: source.name,
    });
  } finally {
    await source.close();
  }
}

/** Splits a byte stream into lines (without CR/LF), one array per chunk so the loop pays one await per chunk. */
async function* lineChunks(stream: Readable): AsyncGenerator<Buffer[]> {
  let rest: Buffer | undefined;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const data = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
    const lines: Buffer[] = [];
    let start = 0;
    for (let end = data.indexOf(0x0a, start); end !== -1; end = data.indexOf(0x0a, start)) {
      lines.push(data.subarray(start, end > start && data[end - 1] === 0x0d ? end - 1 : end));
      start = end + 1;
    }
    rest = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
    // A listing line is a few hundred bytes; a file without line breaks must not grow this buffer without end.
    if (rest !== undefined && rest.length > maxLineBytes)
      throw new RegistryLayoutError(`a line longer than ${maxLineBytes} bytes: this is not DGII's listing`);
    if (lines.length > 0) yield lines;
  }
  if (rest !== undefined && rest.length > 0) yield [rest[rest.length - 1] === 0x0d ? rest.subarray(0, -1) : rest];
}

export async function importRegistryStream(
  deps: ImportDeps,
  stream: Readable,
  options: ImportOptions & { totalBytes?: number | undefined; name?: string } = {},
): Promise<ImportReport> {
  const batchSize = options.batchSize ?? 5_000;
  const keep = options.examples ?? 5;
  const started = performance.now();
  const importedAt = deps.clock.now();
  const report: ImportReport = {
    source: options.name ?? 'stream',
    layout: undefined,
    rows: 0,
    imported: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    duplicates: 0,
    checkDigitExceptions: 0,
    rejected: 0,
    rejectedByReason: {},
    durationMs: 0,
    rowsPerSecond: 0,
  };
  let bytes = 0;
  let lineNumber = 0;
  let layout: RegistryLayout | undefined;
  let batch = new Map<string, RegistryRow>();
  let writing: Promise<void> = Promise.resolve();
  let writeError: Error | undefined;
  let layoutChecked = false;

  const reject = (reason: RejectReason, detail: string) => {
    report.rejected++;
    const entry = (report.rejectedByReason[reason] ??= { count: 0, examples: [] });
    entry.count++;
    if (entry.examples.length < keep) entry.examples.push({ line: lineNumber, detail });
  };

  // A file mostly made of rejected rows is not the listing we know (DGII changed the layout, or this is
  // another file): stop before writing anything rather than import garbage.
  const checkLayout = (final: boolean) => {
    if (layoutChecked) return;
    if (!final && report.rows < layoutSample) return;
    layoutChecked = true;
    // Below the sample size only a file with no good row at all is refused: a short file may well be mostly bad.
    const wrongLayout =
      report.rows >= layoutSample ? report.rejected * 2 > report.rows : report.rejected === report.rows;
    if (report.rows > 0 && wrongLayout) {
      throw new RegistryLayoutError(
        `${report.source}: ${report.rejected} of the first ${report.rows} rows do not fit the ${layout ?? 'known'} layout (${Object.keys(report.rejectedByReason).join(', ')}); not imported`,
      );
    }
  };

  const flush = async () => {
    if (batch.size === 0) return;
    checkLayout(false);
    const rows = [...batch.values()];
    batch = new Map();
    await writing;
    if (writeError !== undefined) throw writeError;
    writing = upsertTaxpayers(deps.db, rows, importedAt).then(
      ({ inserted, updated }) => {
        report.inserted += inserted;
        report.updated += updated;
        report.unchanged += rows.length - inserted - updated;
      },
      (error: unknown) => {
        writeError = error instanceof Error ? error : new Error(String(error));
      },
    );
  };

  for await (const lines of lineChunks(stream)) {
    for (const raw of lines) {
      lineNumber++;
      bytes += raw.length + 1;
      // A UTF-8 byte-order mark would otherwise make the first line look like UTF-8 text.
      const bytesOfLine =
        lineNumber === 1 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? raw.subarray(3) : raw;
      const decoded = decodeLine(bytesOfLine);
      if (layout === undefined) {
        const text = decoded.ok ? decoded.text : bytesOfLine.toString('latin1');
        if (text.trim() === '') continue;
        const detected = detectLayout(text);
        layout = detected.layout;
        report.layout = layout;
        if (detected.header) continue;
      }
      if (decoded.ok && decoded.text.trim() === '') continue;
      report.rows++;
      if (!decoded.ok) {
        reject('bad_encoding', decoded.detail);
        continue;
      }
      const parsed = parseLine(decoded.text, layout);
      if (!parsed.ok) {
        reject(parsed.reason, parsed.detail);
        continue;
      }
      if (checkTaxpayerId(parsed.row.taxId) !== undefined) report.checkDigitExceptions++;
      if (batch.has(parsed.row.taxId)) report.duplicates++;
      batch.set(parsed.row.taxId, parsed.row);
      if (batch.size >= batchSize) await flush();
    }
    options.progress?.update({ rows: report.rows, bytes, totalBytes: options.totalBytes });
  }
  await flush();
  checkLayout(true);
  await writing;
  if (writeError !== undefined) throw writeError;

  report.imported = report.inserted + report.updated + report.unchanged;
  report.durationMs = Math.round(performance.now() - started);
  report.rowsPerSecond = report.durationMs === 0 ? report.rows : Math.round((report.rows * 1_000) / report.durationMs);
  options.progress?.finish({ rows: report.rows, bytes, totalBytes: options.totalBytes });
  return report;
}

/** A readable summary for the command line. */
export function describeReport(report: ImportReport): string {
  const lines = [
    `Imported ${report.imported} of ${report.rows} rows from ${report.source} (${report.inserted} new, ${report.updated} changed, ${report.unchanged} unchanged) in ${(report.durationMs / 1_000).toFixed(1)} s, ${report.rowsPerSecond} rows/s.`,
  ];
  if (report.duplicates > 0)
    lines.push(`${report.duplicates} rows repeated a number listed earlier in the file; the later one was kept.`);
  if (report.checkDigitExceptions > 0)
    lines.push(`${report.checkDigitExceptions} numbers fail the check-digit rules but are DGII's own; kept.`);
  lines.push(`Rejected ${report.rejected} rows.`);
  for (const [reason, rows] of Object.entries(report.rejectedByReason)) {
    lines.push(`  ${reason}: ${rows.count}`);
    for (const example of rows.examples) lines.push(`    line ${example.line}: ${example.detail}`);
  }
  return `${lines.join('\n')}\n`;
}

export { RegistrySourceError };
