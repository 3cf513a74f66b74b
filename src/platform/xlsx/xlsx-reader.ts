// Reads .xlsx workbooks (Office Open XML spreadsheets) as rows of text, a sheet at a time, without holding a sheet
// in memory: the zip is read through its central directory (yauzl) and a sheet part is inflated and scanned as the
// caller pulls rows. `openXlsx` gives the sheet names first, so a caller can say "this workbook has no sheet ECF"
// before reading anything, and `rows(sheet)` is an async iterable rather than a callback so the caller may await
// its own work per row while the inflate waits. `readXlsxSheets` collects the same rows in memory.
//
// The XML is read by a hand-written incremental scanner (xml-scanner.ts), not fast-xml-parser as elsewhere in the
// project, because fast-xml-parser takes one whole string and does not stream; the scanner refuses any DTD.
import { open } from 'node:fs/promises';
import { posix } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { SharedStringsScan, SheetScan, type XlsxRow } from './sheet-scan.js';
import { XmlScanner, type XmlHandler } from './xml-scanner.js';

export type { XlsxRow } from './sheet-scan.js';

export class XlsxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XlsxError';
  }
}

export interface XlsxWorkbook {
  /** In the workbook's tab order. */
  readonly sheetNames: readonly string[];
  /** The rows holding at least one value, in the order the sheet lists them. Throws XlsxError for an unknown sheet. */
  rows(sheet: string): AsyncIterable<XlsxRow>;
  close(): void;
}

export interface XlsxReadOptions {
  /** Zip-bomb guard: no part may inflate past this many bytes (declared or actual). */
  maxPartBytes?: number;
}

const defaultMaxPartBytes = 256 * 1024 * 1024;

export async function openXlsx(path: string, options: XlsxReadOptions = {}): Promise<XlsxWorkbook> {
  const maxBytes = options.maxPartBytes ?? defaultMaxPartBytes;
  const zip = await openZip(path);
  try {
    const entries = new Map<string, yauzl.Entry>();
    try {
      // Part names compare as case-insensitive ASCII (OPC, ECMA-376 Part 2, rule M1.12).
      for await (const entry of zip.eachEntry()) entries.set(entry.fileName.toLowerCase(), entry);
    } catch (error) {
      throw new XlsxError(`${path} is not a readable zip (${messageOf(error)})`);
    }
    if (entries.size === 0) throw new XlsxError(`${path} is an empty zip, not an xlsx workbook`);
    const scan = async (part: string, handler: XmlHandler) => {
      const scanner = new XmlScanner(handler, (detail) => new XlsxError(`${part} in ${path} ${detail}`));
      for await (const text of inflate(zip, path, entries.get(part.toLowerCase()), part, maxBytes)) scanner.write(text);
      scanner.end();
    };

    if (!entries.has('xl/workbook.xml'))
      throw new XlsxError(`${path} is not an xlsx workbook: it has no xl/workbook.xml`);
    const sheets: { name: string; relationship: string | undefined }[] = [];
    await scan('xl/workbook.xml', {
      open(name, attributes) {
        if (name !== 'sheet') return;
        const relationship = [...attributes].find(([key]) => key.endsWith(':id'))?.[1];
        sheets.push({ name: attributes.get('name') ?? '', relationship });
      },
    });
    const relationships = new Map<string, { type: string; part: string }>();
    if (entries.has('xl/_rels/workbook.xml.rels')) {
      await scan('xl/_rels/workbook.xml.rels', {
        open(name, attributes) {
          const [id, target] = [attributes.get('Id'), attributes.get('Target')];
          if (name !== 'Relationship' || id === undefined || target === undefined) return;
          // Targets are relative to the workbook part's folder, or absolute from the package root.
          const part = target.startsWith('/') ? posix.normalize(target.slice(1)) : posix.join('xl', target);
          relationships.set(id, { type: attributes.get('Type') ?? '', part });
        },
      });
    }
    const sharedStringsPart =
      [...relationships.values()].find((r) => r.type.endsWith('/sharedStrings'))?.part ?? 'xl/sharedStrings.xml';
    let sharedStrings: Promise<string[]> | undefined;
    const readSharedStrings = async () => {
      const scanner = new SharedStringsScan();
      if (entries.has(sharedStringsPart.toLowerCase())) await scan(sharedStringsPart, scanner);
      return scanner.strings;
    };

    const sheetNames = sheets.map((sheet) => sheet.name);
    return {
      sheetNames,
      async *rows(sheet: string) {
        const found = sheets.find((candidate) => candidate.name === sheet);
        if (found === undefined) {
          throw new XlsxError(
            `${path} has no sheet named "${sheet}" (its sheets: ${sheetNames.map((name) => `"${name}"`).join(', ')})`,
          );
        }
        const part = found.relationship === undefined ? undefined : relationships.get(found.relationship)?.part;
        if (part === undefined || !entries.has(part.toLowerCase()))
          throw new XlsxError(`${path} names a sheet "${sheet}" whose part is missing`);
        sharedStrings ??= readSharedStrings();
        const handler = new SheetScan(
          await sharedStrings,
          (detail) => new XlsxError(`sheet "${sheet}" in ${path} ${detail}`),
        );
        const scanner = new XmlScanner(handler, (detail) => new XlsxError(`${part} in ${path} ${detail}`));
        for await (const text of inflate(zip, path, entries.get(part.toLowerCase()), part, maxBytes)) {
          scanner.write(text);
          yield* handler.take();
        }
        scanner.end();
        yield* handler.take();
      },
      close: () => {
        zip.close();
      },
    };
  } catch (error) {
    zip.close();
    throw error;
  }
}

/** The rows of the named sheets, in memory: for workbooks small enough to hold. */
export async function readXlsxSheets(
  path: string,
  sheetNames: readonly string[],
  options: XlsxReadOptions = {},
): Promise<Map<string, XlsxRow[]>> {
  const workbook = await openXlsx(path, options);
  try {
    const sheets = new Map<string, XlsxRow[]>();
    for (const name of sheetNames) {
      const rows: XlsxRow[] = [];
      for await (const row of workbook.rows(name)) rows.push(row);
      sheets.set(name, rows);
    }
    return sheets;
  } finally {
    workbook.close();
  }
}

async function openZip(path: string): Promise<yauzl.ZipFile> {
  try {
    return await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (error) {
    if (error instanceof Error && 'code' in error) throw new XlsxError(`cannot read ${path} (${error.message})`);
    // The usual mistake: a legacy .xls, or an encrypted .xlsx, both OLE compound files rather than zips.
    const magic = Buffer.alloc(8);
    const file = await open(path, 'r').catch(() => undefined);
    try {
      await file?.read(magic, 0, 8, 0);
    } finally {
      await file?.close();
    }
    if (magic.equals(Buffer.from('d0cf11e0a1b11ae1', 'hex')))
      throw new XlsxError(`${path} is a legacy .xls or a password-protected workbook, not an xlsx`);
    throw new XlsxError(`${path} is not an xlsx workbook: it is not a zip file`);
  }
}

/** A part's text as it inflates, counting the bytes that actually come out rather than trusting the declared size. */
async function* inflate(
  zip: yauzl.ZipFile,
  path: string,
  entry: yauzl.Entry | undefined,
  part: string,
  maxBytes: number,
): AsyncGenerator<string> {
  if (entry === undefined) throw new XlsxError(`${path} has no ${part}`);
  const tooBig = () => new XlsxError(`${part} in ${path} inflates past ${maxBytes} bytes, the bound for one part`);
  if (entry.uncompressedSize > maxBytes) throw tooBig();
  let stream: Readable | undefined;
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  try {
    stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxBytes) throw tooBig();
      yield decoder.write(chunk);
    }
  } catch (error) {
    if (error instanceof XlsxError) throw error;
    throw new XlsxError(`${part} in ${path} cannot be inflated (${messageOf(error)})`);
  } finally {
    stream?.destroy();
  }
  yield decoder.end();
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
